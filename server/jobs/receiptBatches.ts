// Batched webhooks' events (docs/WEBHOOKS.md, "Batches"): every worker polls for webhooks with a batch due,
// claims a few (one batch per webhook in flight, held in the webhook row), posts each as one signed body and
// records the outcome on every event of it. No job row and no lease per event: a batch of 1,000 receipts is one
// claim, one POST and one statement. A failed batch counts an attempt on each of its events and waits out the
// backoff of its oldest; an event whose last attempt fails is `failed` in the log. A worker that dies holding a
// batch leaves its hold to run out: another worker claims the same events again (at least once).
import { claimReceiptBatches, finishReceiptBatch, releaseReceiptBatches, type ReceiptBatch } from "../db/receiptBatches.js";
import type { Db } from "../db/knex.js";
import { batchBody, batchId, inStatusOrder } from "../domain/receiptBatch.js";
import type { Logger } from "../logger.js";
import type { ReceiptClient } from "../webhooks/client.js";
import { receiptHeaders } from "../webhooks/signing.js";
import { MAX_ATTEMPTS, retryDelayMs, WEBHOOK_DISABLED } from "./handlers/deliverReceipt.js";
import { retryTransient } from "./retryTransient.js";
import { webhookHealth, type HealthOptions } from "./webhookHealth.js";

/** How often a worker looks for a batch due: a batch goes out at most this much after its time. */
export const BATCH_POLL_MS = 250;
/** Batches one worker posts at once (each to another webhook). */
const BATCHES_AT_ONCE = 8;

export interface ReceiptBatchOptions extends HealthOptions {
  workerId: string;
  timeoutMs: number;
  retryBaseMs: number;
  log: Logger;
  pollMs?: number;
  random?: () => number;
}

export class ReceiptBatches {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private tick: Promise<void> = Promise.resolve();
  private readonly recordHealth: ReturnType<typeof webhookHealth>;
  // A batch's hold outlasts its POST's timeout and the statement that records it.
  private readonly holdMs: number;

  constructor(
    private readonly db: Db,
    private readonly client: ReceiptClient,
    private readonly opts: ReceiptBatchOptions,
  ) {
    this.recordHealth = webhookHealth(db, opts.log, opts);
    this.holdMs = opts.timeoutMs + 30_000;
  }

  start(): void {
    this.schedule(0);
  }

  /** Stops polling, lets the batches in flight finish, and ends this worker's holds. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.tick;
    await releaseReceiptBatches(this.db, this.opts.workerId).catch((error: unknown) =>
      this.opts.log.warn({ err: error }, "ending the receipt batches' holds failed; they run out by themselves"),
    );
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.tick = this.runOnce().then(
        (claimed) => this.schedule(claimed ? 0 : (this.opts.pollMs ?? BATCH_POLL_MS)),
        (error: unknown) => {
          this.opts.log.warn({ err: error }, "claiming receipt batches failed; trying again");
          this.schedule(this.opts.pollMs ?? BATCH_POLL_MS);
        },
      );
    }, ms);
  }

  /** Claims the batches due and posts them; true when it claimed any (another may be due at once). */
  async runOnce(): Promise<boolean> {
    const batches = await claimReceiptBatches(this.db, this.opts.workerId, this.holdMs, BATCHES_AT_ONCE);
    await Promise.all(batches.map((b) => this.post(b)));
    return batches.length > 0;
  }

  private async post(batch: ReceiptBatch): Promise<void> {
    const events = inStatusOrder(batch.deliveries);
    const at = new Date();
    const body = batchBody(events);
    const result = batch.disabledAt
      ? { status: null, error: WEBHOOK_DISABLED, durationMs: 0, retryAfterMs: undefined }
      : await this.client.post(batch.url, body, receiptHeaders(batchId(events), body, batch, at));
    if (!batch.disabledAt) this.recordHealth(batch.webhookId, batch.accountId, result.error === null);
    const ok = result.error === null;
    const statuses = events.map((e) => ({
      id: e.id,
      status: ok ? ("succeeded" as const) : batch.disabledAt || e.attempts + 1 >= MAX_ATTEMPTS ? ("failed" as const) : ("pending" as const),
    }));
    const retried = events.filter((_, i) => statuses[i]!.status === "pending");
    const n = Math.max(0, ...retried.map((e) => e.attempts + 1));
    const retryAt =
      n > 0 ? new Date(Date.now() + Math.max(retryDelayMs(n, this.opts.retryBaseMs, this.opts.random), result.retryAfterMs ?? 0)) : null;
    if (!ok && !batch.disabledAt)
      this.opts.log.info({ webhookId: batch.webhookId, events: events.length, error: result.error, retryAt }, "receipt batch failed");
    const outcome = {
      webhookId: batch.webhookId,
      accountId: batch.accountId,
      workerId: this.opts.workerId,
      deliveries: statuses,
      attempt: { at: at.toISOString(), responseStatus: result.status, error: result.error, durationMs: result.durationMs },
      retryAt,
    };
    // Written again when it fails for a transient reason, never the POST made again.
    await retryTransient(() => finishReceiptBatch(this.db, outcome), { what: "recording a receipt batch", log: this.opts.log });
  }
}
