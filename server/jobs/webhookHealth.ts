// A webhook's failure run: every attempt's outcome moves it on (a success ends it), batched like the
// deliveries' own bookkeeping. A run at least WEBHOOK_DISABLE_AFTER_FAILURES attempts long that began at least
// WEBHOOK_DISABLE_AFTER_HOURS ago disables the webhook (docs/WEBHOOKS.md): an event in the log, the counter
// below, and `disabledAt` in the API until it is enabled again.
import { processCounter } from "../processMetrics.js";
import type { Db } from "../db/knex.js";
import { recordWebhookAttempts, type WebhookAttempts } from "../db/webhooks.js";
import { batcher } from "../db/batcher.js";
import type { Logger } from "../logger.js";

export const webhooksDisabledTotal = processCounter({
  name: "webhooks_disabled_total",
  help: "Webhooks disabled after a long run of failed delivery attempts",
});

export interface HealthOptions {
  disableAfterFailures: number;
  disableAfterMs: number;
}

/**
 * A webhook whose successes this worker recorded this recently is not written again for more successes: a
 * busy healthy webhook cost a statement per batch of POSTs to write the same zero (bench/NOTES.md, "Figures
 * behind the code"). A failure is always written; a success after one at once. Another worker's failure run is ended
 * by this worker's success within this time.
 */
const HEALTHY_REWRITE_MS = 1000;

/** Records attempt outcomes per webhook; returns `record(webhookId, accountId, succeeded)`, which never throws. */
export function webhookHealth(
  db: Db,
  log: Logger,
  opts: HealthOptions,
): (webhookId: string, accountId: string, succeeded: boolean) => void {
  const healthyWrittenAt = new Map<string, number>();
  const outcomes = batcher<{ webhookId: string; accountId: string; succeeded: boolean }>(async (items) => {
    const byWebhook = new Map<string, WebhookAttempts>();
    for (const { webhookId, accountId, succeeded } of items) {
      const w = byWebhook.get(webhookId) ?? { webhookId, accountId, failuresSinceSuccess: 0, succeeded: false };
      if (succeeded) Object.assign(w, { failuresSinceSuccess: 0, succeeded: true });
      else w.failuresSinceSuccess++;
      byWebhook.set(webhookId, w);
    }
    const now = Date.now();
    const results = [...byWebhook.values()].filter(
      (w) => w.failuresSinceSuccess > 0 || now - (healthyWrittenAt.get(w.webhookId) ?? -Infinity) >= HEALTHY_REWRITE_MS,
    );
    for (const w of results) {
      if (w.failuresSinceSuccess > 0) healthyWrittenAt.delete(w.webhookId);
      else healthyWrittenAt.set(w.webhookId, now);
    }
    const disabled = await recordWebhookAttempts(db, results, {
      afterFailures: opts.disableAfterFailures,
      afterMs: opts.disableAfterMs,
    });
    for (const w of disabled) {
      webhooksDisabledTotal.inc();
      log.warn(
        {
          event: "webhook_disabled",
          webhookId: w.id,
          accountId: w.accountId,
          consecutiveFailures: w.consecutiveFailures,
          failingSince: w.failingSince,
        },
        "webhook disabled after a long run of failed deliveries",
      );
    }
  });
  return (webhookId, accountId, succeeded) => {
    outcomes
      .add({ webhookId, accountId, succeeded })
      .catch((error: unknown) => log.warn({ err: error }, "recording webhook health failed"));
  };
}
