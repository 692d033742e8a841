// Records how each job ended (River's completer). Successes are batched: one DELETE for many jobs instead of
// one per job. Snoozes are batched the same way (a webhook's receipts over its cap are snoozed by the dozen).
// Failures are rare and written one by one: a retry at the handler's time or after a backoff, or a discard.
import { completeJobs, failJob, snoozeJobs, type ClaimedJob } from "../db/jobs/index.js";
import type { Db } from "../db/knex.js";
import type { Logger } from "../logger.js";
import { batcher } from "../db/batcher.js";
import { retryTransient } from "./retryTransient.js";
import { PermanentFailure, RetryLater, Snooze } from "./types.js";

const COMPLETION_BATCH = 100;
const COMPLETION_DELAY_MS = 2;

/** Default retry delay for a failed job: 1 s, 2 s, 4 s … capped at 5 min, ±10 %. */
export function defaultBackoffMs(attempt: number): number {
  return Math.min(1000 * 2 ** (attempt - 1), 300_000) * (0.9 + Math.random() * 0.2);
}

export class Completer {
  private readonly completions;
  private readonly snoozes;
  /** Jobs done whose completion is not written yet: still in hand, so the heartbeat keeps their leases. */
  private readonly unwritten = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly workerId: string,
    log: Logger,
  ) {
    this.completions = batcher<string>(
      async (ids) => {
        try {
          await retryTransient(() => completeJobs(db, workerId, ids), { what: "completing jobs", log });
        } catch (error) {
          log.error({ err: error, count: ids.length }, "completing jobs failed; when their leases expire they run again");
        } finally {
          for (const id of ids) this.unwritten.delete(id);
        }
      },
      { delayMs: COMPLETION_DELAY_MS, maxBatch: COMPLETION_BATCH },
    );
    this.snoozes = batcher<{ id: string; runAt: Date; claimedRunAt: Date; wake: boolean; connectorId: string | null }>(
      (jobs) => retryTransient(() => snoozeJobs(db, workerId, jobs), { what: "snoozing jobs", log }),
      {
        delayMs: COMPLETION_DELAY_MS,
        maxBatch: COMPLETION_BATCH,
      },
    );
  }

  complete(id: string): Promise<void> {
    this.unwritten.add(id);
    return this.completions.add(id);
  }

  /** The jobs whose completion is still to be written (their leases must be kept until it is). */
  inHand(): Iterable<string> {
    return this.unwritten;
  }

  /** Records a failed (or snoozed) attempt; returns when the job is due again, null when it is not. */
  async fail(job: ClaimedJob, error: Error, log: Logger): Promise<Date | null> {
    try {
      if (error instanceof Snooze) {
        await this.snoozes.add({
          id: job.id,
          runAt: error.runAt,
          claimedRunAt: job.runAt,
          wake: error.wake,
          connectorId: error.connectorId,
        });
        return error.runAt;
      }
      const retryAt =
        error instanceof PermanentFailure
          ? null
          : error instanceof RetryLater
            ? error.runAt
            : new Date(Date.now() + defaultBackoffMs(job.attempt));
      if (!(error instanceof RetryLater)) log.warn({ err: error }, "job failed");
      await retryTransient(() => failJob(this.db, this.workerId, job.id, error.message, retryAt), { what: "recording a failed job", log });
      return retryAt;
    } catch (dbError) {
      // The lease will expire and the rescuer will make the job claimable again.
      log.error({ err: dbError }, "recording a job failure failed");
      return null;
    }
  }

  /** Writes the completions still waiting (on shutdown). */
  async flush(): Promise<void> {
    await Promise.all([this.completions.flush(), this.snoozes.flush()]);
  }
}
