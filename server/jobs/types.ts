import type { JobRow } from "../db/jobs/index.js";
import type { Logger } from "../logger.js";

export interface JobContext {
  workerId: string;
  log: Logger;
  /** Aborted when the worker lost the job's lease or is shutting down past its deadline. */
  signal: AbortSignal;
}

export type JobHandler = (job: JobRow, ctx: JobContext) => Promise<void>;

/**
 * Runs all claimed jobs of one kind together (one claim of due sends becomes a few set-wise statements
 * instead of a few per message). Returns one outcome per job, in order: undefined for success, or the error
 * that job failed with (RetryLater, Snooze, PermanentFailure or any other).
 */
export interface BatchJobHandler {
  batch: (jobs: JobRow[], ctx: JobContext) => Promise<(Error | undefined)[]>;
}

export type Handler = JobHandler | BatchJobHandler;

/** Throw to retry the job at `runAt` (counts as a failed attempt). */
export class RetryLater extends Error {
  constructor(readonly runAt: Date, message: string) {
    super(message);
  }
}

/** Throw to run the job again at `runAt` without counting an attempt (it chose to wait, it did not fail). */
export class Snooze extends Error {
  constructor(readonly runAt: Date, reason: string) {
    super(reason);
  }
}

/** Throw when retrying cannot help: the job is discarded at once. */
export class PermanentFailure extends Error {}
