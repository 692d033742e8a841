// Delivers receipts from the outbox: one deliver_receipt job per delivery, one HTTP POST per attempt, the
// claimed jobs handled as a batch (their bookkeeping is set-wise; the POSTs go out concurrently over the
// keep-alive pool).
//
// Success is a 2xx within WEBHOOK_TIMEOUT_MS. Anything else (3xx — redirects are not followed —, 4xx, 5xx, a
// timeout, a refused or reset connection) is a failed attempt, retried up to 3 times after
// WEBHOOK_RETRY_BASE_MS × 5^(n-1) ± 10 % (a longer Retry-After on 429/503 wins). After the 4th failed attempt
// the delivery is `failed` and stays in the log, where it can be redelivered. The attempt count lives in the
// delivery row, so a restart between two attempts changes nothing.
import type { Db } from "../../db/knex.js";
import {
  finishDeliveries,
  loadDeliveriesForDispatch,
  parkBehindEarlier,
  releaseNextParked,
  type AttemptOutcome,
  type DeliveryForDispatch,
} from "../../db/webhookDeliveries.js";
import type { ReceiptClient } from "../../webhooks/client.js";
import { receiptHeaders } from "../../webhooks/signing.js";
import { batcher } from "../batcher.js";
import { RetryLater, type BatchJobHandler } from "../types.js";

export const MAX_ATTEMPTS = 4;

export interface DispatcherOptions {
  retryBaseMs: number;
  /** Jitter source in [0, 1); tests may pin it. */
  random?: () => number;
}

/** Delay before retry n (1-based): base × 5^(n-1), ±10 %. */
export function retryDelayMs(n: number, baseMs: number, random: () => number = Math.random): number {
  return Math.round(baseMs * 5 ** (n - 1) * (0.9 + 0.2 * random()));
}

export function deliverReceiptHandler(db: Db, client: ReceiptClient, opts: DispatcherOptions): BatchJobHandler<"deliver_receipt"> {
  // Each outcome is recorded as soon as its POST ends; outcomes that end together are written together.
  const finishes = batcher<AttemptOutcome>((outcomes) => finishDeliveries(db, outcomes));
  return {
    async batch(jobs, { log }) {
      const outcomes: (Error | undefined)[] = jobs.map(() => undefined);
      const loaded = new Map(
        (
          await loadDeliveriesForDispatch(
            db,
            jobs.map((j) => j.payload.deliveryId),
          )
        ).map((d) => [d.id, d]),
      );
      // Gone (webhook deleted): nothing to do. Already finished: a retry after the finish committed but the
      // release of the next receipt did not (the connection died in between), so release again (idempotent).
      const found = jobs.map((j) => loaded.get(j.payload.deliveryId)).filter((d): d is DeliveryForDispatch => d !== undefined);
      const pending = found.filter((d) => d.status === "pending");
      await releaseNextParked(
        db,
        found.filter((d) => d.status !== "pending" && d.messageId).map((d) => ({ messageId: d.messageId!, webhookId: d.webhookId })),
      );
      const parked = await parkBehindEarlier(db, pending);
      if (parked.size) log.debug({ parked: parked.size }, "parked behind earlier receipts of the same message");

      // Each delivery is recorded as soon as its POST ends, so a slow receiver holds up no other's
      // bookkeeping (nor the release of the next receipt of another message); outcomes that end together
      // are written together (jobs/batcher.ts).
      await Promise.all(
        pending
          .filter((d) => !parked.has(d.id))
          .map(async (d) => {
            const at = new Date();
            const result = await client.post(d.url, d.body, receiptHeaders(d.id, d.body, d, at));
            const attempt = { at: at.toISOString(), responseStatus: result.status, error: result.error, durationMs: result.durationMs };
            const n = d.attempts.length + 1;
            const outcome: AttemptOutcome = { id: d.id, messageId: d.messageId, webhookId: d.webhookId, attempt, status: "succeeded" };
            if (result.error !== null && n >= MAX_ATTEMPTS) {
              log.warn({ deliveryId: d.id, webhookId: d.webhookId, error: result.error }, "receipt delivery failed for good");
              outcome.status = "failed";
            } else if (result.error !== null) {
              const delay = Math.max(retryDelayMs(n, opts.retryBaseMs, opts.random), result.retryAfterMs ?? 0);
              outcomes[jobs.findIndex((j) => j.payload.deliveryId === d.id)] = new RetryLater(
                new Date(Date.now() + delay),
                `attempt ${n} failed: ${result.error}`,
              );
              outcome.status = "pending";
            }
            await finishes.add(outcome);
          }),
      );
      return outcomes;
    },
  };
}
