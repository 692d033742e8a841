// Delivers receipts from the outbox: a deliver_receipt job per delivery (or none for one handed to the worker
// whose status change made it: ClaimedJob.rowless, its lease in its own row), one HTTP POST per attempt, the
// claimed jobs handled as a batch (their bookkeeping is set-wise; the POSTs go out concurrently over the
// keep-alive pool). Each job is settled as soon as its own POST is recorded, so its slot is free and its retry
// due from its own failure, whatever its neighbours in the batch do. Per webhook, webhooks/pacing.ts caps
// the POSTs in flight (a job over the cap waits briefly for a quick webhook, else is snoozed, no attempt counted) and jobs/webhookHealth.ts keeps the
// failure run that disables a webhook; a disabled webhook's receipts are recorded `failed` without a POST.
//
// Success is a 2xx within WEBHOOK_TIMEOUT_MS. Anything else (3xx — redirects are not followed —, 4xx, 5xx, a
// timeout, a refused or reset connection) is a failed attempt, retried up to 3 times after
// WEBHOOK_RETRY_BASE_MS × 5^(n-1) ± 10 % (a longer Retry-After on 429/503 wins). After the 4th failed attempt
// the delivery is `failed` and stays in the log, where it can be redelivered. The attempt count lives in the
// delivery row, so a restart between two attempts changes nothing.
import { recallSnoozedReceipts, type JobRow } from "../../db/jobs/index.js";
import type { Db } from "../../db/knex.js";
import { mayHoldBackLater } from "../../domain/deliveryOrder.js";
import {
  finishDeliveries,
  loadDeliveriesForDispatch,
  parkBehindEarlier,
  releaseNextParked,
  type AttemptOutcome,
  type DeliveryForDispatch,
} from "../../db/webhookDeliveries.js";
import type { ReceiptClient } from "../../webhooks/client.js";
import type { Logger } from "../../logger.js";
import { webhookHealth } from "../webhookHealth.js";
import { WebhookPacing } from "../../webhooks/pacing.js";
import { receiptHeaders } from "../../webhooks/signing.js";
import { batcher, type Batcher } from "../../db/batcher.js";
import { retryTransient } from "../retryTransient.js";
import { JOB_COMPLETED, RetryLater, Snooze, type BatchJobHandler, type JobContext } from "../types.js";

type Completes = NonNullable<AttemptOutcome["completes"]>;
type Outcome = Error | undefined | typeof JOB_COMPLETED;

export const MAX_ATTEMPTS = 4;

/** The error recorded on receipts of a disabled webhook (they can be redelivered once it is enabled). */
export const WEBHOOK_DISABLED = "webhook_disabled";

export interface DispatcherOptions {
  retryBaseMs: number;
  /** Deliveries to one webhook at once, per worker. */
  maxInFlight: number;
  /** The receipts lane's slots: webhooks in a failure run share at most half of them. */
  laneConcurrency: number;
  slowAfterFailures: number;
  disableAfterFailures: number;
  disableAfterMs: number;
  log: Logger;
  /** Jitter source in [0, 1); tests may pin it. */
  random?: () => number;
}

/** Delay before retry n (1-based): base × 5^(n-1), ±10 %. */
export function retryDelayMs(n: number, baseMs: number, random: () => number = Math.random): number {
  return Math.round(baseMs * 5 ** (n - 1) * (0.9 + 0.2 * random()));
}

export function deliverReceiptHandler(db: Db, client: ReceiptClient, opts: DispatcherOptions): BatchJobHandler<"deliver_receipt"> {
  const dispatcher = new ReceiptDispatcher(db, client, opts);
  return { batch: (jobs, ctx) => dispatcher.batch(jobs, ctx) };
}

/** The receipts lane's handler: one per worker, holding what lives across batches (pacing, health, finishes). */
class ReceiptDispatcher {
  // Each outcome is recorded as soon as its POST ends; outcomes that end together are written together.
  private readonly finishes: Batcher<AttemptOutcome>;
  private readonly pacing: WebhookPacing;
  private readonly recordHealth: ReturnType<typeof webhookHealth>;

  constructor(
    private readonly db: Db,
    private readonly client: ReceiptClient,
    private readonly opts: DispatcherOptions,
  ) {
    // A finish that fails for a transient reason is written again, never the POST made again.
    this.finishes = batcher<AttemptOutcome>((outcomes) =>
      retryTransient(() => finishDeliveries(db, outcomes), { what: "recording receipt deliveries", log: opts.log }),
    );
    this.pacing = new WebhookPacing({ ...opts, failingShare: Math.max(1, Math.floor(opts.laneConcurrency / 2)) });
    this.recordHealth = webhookHealth(db, opts.log, opts);
  }

  async batch(jobs: JobRow<"deliver_receipt">[], { log, settle, workerId }: JobContext): Promise<(Error | undefined)[]> {
    const outcomes: (Error | undefined)[] = jobs.map(() => undefined);
    const indexOf = new Map(jobs.map((j, i) => [j.payload.deliveryId, i]));
    const pending = await pendingInOrder(this.db, jobs, log);
    const work: Promise<void>[] = [];
    const inWork = new Set<number>();
    /**
     * The job a delivery's final outcome completes, in the statement that records it; none for a delivery
     * handed without one (rowless), whose every outcome that is not final is written as a job instead.
     */
    const jobOf = (d: DeliveryForDispatch): Completes | undefined => {
      const job = jobs[indexOf.get(d.id)!]!;
      return job.rowless ? undefined : { jobId: job.id, workerId };
    };
    /** Runs a delivery's work and settles its job as soon as it ends. */
    const runThenSettle = (d: DeliveryForDispatch, run: () => Promise<Outcome>) => {
      const i = indexOf.get(d.id)!;
      inWork.add(i);
      work.push(
        run().then(
          (outcome) => {
            outcomes[i] = outcome === JOB_COMPLETED ? undefined : outcome;
            settle(i, outcome);
          },
          (error: unknown) => settle(i, (outcomes[i] = error instanceof Error ? error : new Error(String(error)))),
        ),
      );
    };
    for (const d of pending) {
      if (d.batched) {
        runThenSettle(d, () => this.handToBatches(d, jobOf(d)));
        continue;
      }
      if (d.disabledAt) {
        runThenSettle(d, () => this.recordDisabled(d, jobOf(d)));
        continue;
      }
      const { snoozeUntil, wait } = this.pacing.acquire(d.webhookId, d.consecutiveFailures, true);
      const job = jobOf(d);
      if (snoozeUntil !== undefined) {
        if (job) outcomes[indexOf.get(d.id)!] = atCap(snoozeUntil);
        else runThenSettle(d, () => this.waitAtCap(d, undefined, snoozeUntil));
      } else if (wait) runThenSettle(d, () => this.attemptWhenPlaced(d, jobOf(d), log));
      else runThenSettle(d, () => this.attempt(d, jobOf(d), log));
    }
    // Everything not being posted (gone, finished, parked, snoozed) ends now, not with the batch.
    jobs.forEach((_, i) => inWork.has(i) || settle(i, outcomes[i]));
    await Promise.all(work);
    return outcomes;
  }

  /** A quick webhook at its cap: a place comes within milliseconds, so wait for it rather than snooze. */
  private async attemptWhenPlaced(d: DeliveryForDispatch, job: Completes | undefined, log: Logger): Promise<Outcome> {
    if (await this.pacing.waitForPlace(d.webhookId)) return this.attempt(d, job, log);
    const { snoozeUntil } = this.pacing.acquire(d.webhookId, d.consecutiveFailures);
    return snoozeUntil === undefined ? this.attempt(d, job, log) : this.waitAtCap(d, job, snoozeUntil);
  }

  /** Over its webhook's cap: its job snoozed (by the runner), or a handed delivery given a job due then. */
  private async waitAtCap(d: DeliveryForDispatch, job: Completes | undefined, snoozeUntil: number): Promise<Outcome> {
    if (!job) await this.finishes.add({ ...outcomeOf(d), status: "pending", attempt: null, requeueAt: new Date(snoozeUntil) });
    return atCap(snoozeUntil);
  }

  /** The webhook answers quickly again: its receipts snoozed while it was slow are made due now. */
  private recall(d: DeliveryForDispatch, log: Logger): void {
    recallSnoozedReceipts(this.db, d.accountId, d.webhookId).then(
      (n) => n > 0 && log.info({ webhookId: d.webhookId, recalled: n }, "webhook answers quickly again; its snoozed receipts recalled"),
      (error: unknown) => log.warn({ err: error, webhookId: d.webhookId }, "recalling a recovered webhook's snoozed receipts failed"),
    );
  }

  /**
   * Its webhook takes events in batches (it had this job from before batching was turned on, or from a
   * previous-release worker): the job ends, the delivery stays pending, without a lease, for the next batch.
   */
  private async handToBatches(d: DeliveryForDispatch, job: Completes | undefined): Promise<Outcome> {
    await this.finishes.add({ ...outcomeOf(d), status: "pending", attempt: null, completes: job, toBatches: true });
    return JOB_COMPLETED;
  }

  private async recordDisabled(d: DeliveryForDispatch, job: Completes | undefined): Promise<Outcome> {
    const attempt = { at: new Date().toISOString(), responseStatus: null, error: WEBHOOK_DISABLED, durationMs: 0 };
    await this.finishes.add({ ...outcomeOf(d), attempt, status: "failed", completes: job });
    return JOB_COMPLETED;
  }

  /**
   * One POST and its record. A final outcome (succeeded, or failed for good) completes the job in the same
   * statement (JOB_COMPLETED); a failure to retry is the job's RetryLater.
   */
  private async attempt(d: DeliveryForDispatch, job: Completes | undefined, log: Logger): Promise<Outcome> {
    const at = new Date();
    let result;
    try {
      result = await this.client.post(d.url, d.body, receiptHeaders(d.id, d.body, d, at));
    } finally {
      this.pacing.release(d.webhookId, Date.now() - at.getTime());
    }
    this.recordHealth(d.webhookId, d.accountId, result.error === null);
    if (result.error === null && this.pacing.recovered(d.webhookId, result.durationMs)) this.recall(d, log);
    const attempt = { at: at.toISOString(), responseStatus: result.status, error: result.error, durationMs: result.durationMs };
    const n = d.attempts.length + 1;
    const outcome: AttemptOutcome = { ...outcomeOf(d), attempt, status: "succeeded" };
    let retry: RetryLater | undefined;
    if (result.error !== null && n >= MAX_ATTEMPTS) {
      log.warn({ deliveryId: d.id, webhookId: d.webhookId, error: result.error }, "receipt delivery failed for good");
      outcome.status = "failed";
    } else if (result.error !== null) {
      // Due from this attempt's own failure: the job is settled as soon as the outcome is written.
      const delay = Math.max(retryDelayMs(n, this.opts.retryBaseMs, this.opts.random), result.retryAfterMs ?? 0);
      retry = new RetryLater(new Date(Date.now() + delay), `attempt ${n} failed: ${result.error}`);
      outcome.status = "pending";
    }
    if (!retry) outcome.completes = job;
    else if (!job) outcome.requeueAt = retry.runAt; // a handed delivery's retry is a job of its own from now
    await this.finishes.add(outcome);
    return retry ?? JOB_COMPLETED;
  }
}

/** The delivery's identity in an outcome. */
const outcomeOf = (d: DeliveryForDispatch) => ({
  id: d.id,
  accountId: d.accountId,
  messageId: d.messageId,
  webhookId: d.webhookId,
  seq: d.seq,
});

function atCap(snoozeUntil: number): Snooze {
  return new Snooze(new Date(snoozeUntil), "webhook at its concurrency cap");
}

/**
 * The claimed jobs' deliveries that are to be attempted now, in the order receipts of a message keep: each
 * pending one not parked behind an earlier pending receipt of its message (docs/WEBHOOKS.md, "Ordering").
 */
async function pendingInOrder(db: Db, jobs: JobRow<"deliver_receipt">[], log: Logger): Promise<DeliveryForDispatch[]> {
  const loaded = new Map(
    // A job without an account is one of the previous release whose receipt no longer exists.
    (
      await loadDeliveriesForDispatch(
        db,
        jobs.flatMap((j) => (j.accountId === null ? [] : [{ id: j.payload.deliveryId, accountId: j.accountId }])),
      )
    ).map((d) => [d.id, d]),
  );
  // Gone (webhook deleted): nothing to do. Already finished: a retry after the finish committed but the
  // release of the next receipt did not (the connection died in between), so release again (idempotent).
  const found = jobs.map((j) => loaded.get(j.payload.deliveryId)).filter((d): d is DeliveryForDispatch => d !== undefined);
  const pending = found.filter((d) => d.status === "pending");
  await releaseNextParked(
    db,
    found
      .filter((d) => d.status !== "pending" && d.messageId && mayHoldBackLater(d.seq))
      .map((d) => ({ accountId: d.accountId, messageId: d.messageId!, webhookId: d.webhookId })),
  );
  const parked = await parkBehindEarlier(
    db,
    pending.filter((d) => d.earlierPending),
  );
  if (parked.size) log.debug({ parked: parked.size }, "parked behind earlier receipts of the same message");
  return pending.filter((p) => !parked.has(p.id));
}
