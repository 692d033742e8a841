// Delivers receipts from the outbox: one deliver_receipt job per delivery, one HTTP POST per attempt.
//
// Success is a 2xx within WEBHOOK_TIMEOUT_MS. Anything else (3xx — redirects are not followed —, 4xx, 5xx, a
// timeout, a refused or reset connection) is a failed attempt, retried up to 3 times after
// WEBHOOK_RETRY_BASE_MS × 5^(n-1) ± 10 % (a longer Retry-After on 429/503 wins). After the 4th failed attempt
// the delivery is `failed` and stays in the log, where it can be redelivered. The attempt count lives in the
// delivery row, so a restart between two attempts changes nothing.
import type { Db } from "../db/knex.js";
import {
  finishDelivery,
  loadDeliveryForDispatch,
  parkIfBehind,
  recordAttempt,
  type AttemptRecord,
} from "../db/webhookDeliveries.js";
import { RetryLater, type JobHandler } from "../jobs/types.js";
import type { ReceiptClient } from "./client.js";
import { receiptHeaders } from "./signing.js";

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

export function deliverReceiptHandler(db: Db, client: ReceiptClient, opts: DispatcherOptions): JobHandler {
  return async (job, { log }) => {
    const delivery = await loadDeliveryForDispatch(db, job.payload.deliveryId as string);
    if (!delivery || delivery.status !== "pending") return; // webhook deleted, or already finished
    if (await parkIfBehind(db, delivery)) {
      log.debug({ deliveryId: delivery.id }, "parked behind an earlier receipt of the same message");
      return;
    }
    const at = new Date();
    const headers = receiptHeaders(delivery.id, delivery.body, delivery, at);
    const result = await client.post(delivery.url, delivery.body, headers);
    const attempt: AttemptRecord = { at: at.toISOString(), responseStatus: result.status, error: result.error, durationMs: result.durationMs };
    if (result.error === null) {
      await finishDelivery(db, delivery, "succeeded", attempt);
      return;
    }
    const n = delivery.attempts.length + 1;
    if (n >= MAX_ATTEMPTS) {
      log.warn({ deliveryId: delivery.id, webhookId: delivery.webhookId, error: result.error }, "receipt delivery failed for good");
      await finishDelivery(db, delivery, "failed", attempt);
      return;
    }
    await recordAttempt(db, delivery.id, attempt);
    const delay = Math.max(retryDelayMs(n, opts.retryBaseMs, opts.random), result.retryAfterMs ?? 0);
    throw new RetryLater(new Date(Date.now() + delay), `attempt ${n} failed: ${result.error}`);
  };
}
