import type { JobKind, JobRow } from "../db/jobs/index.js";
import type { Logger } from "../logger.js";

export interface JobContext {
  workerId: string;
  log: Logger;
  /** Aborted when the worker lost the job's lease or is shutting down past its deadline. */
  signal: AbortSignal;
}

/** Runs one job of kind K. */
export type JobHandler<K extends JobKind = JobKind> = (job: JobRow<K>, ctx: JobContext) => Promise<void>;

/**
 * Runs all claimed jobs of one kind together (one claim of due sends becomes a few set-wise statements
 * instead of a few per message). Returns one outcome per job, in order: undefined for success, or the error
 * that job failed with (RetryLater, Snooze, PermanentFailure or any other).
 */
export interface BatchJobHandler<K extends JobKind = JobKind> {
  batch: (jobs: JobRow<K>[], ctx: JobContext) => Promise<(Error | undefined)[]>;
}

export type Handler<K extends JobKind = JobKind> = JobHandler<K> | BatchJobHandler<K>;

/** A handler for every job kind, each typed with its own payload. */
export type JobHandlers = { [K in JobKind]: Handler<K> };

/** Throw to retry the job at `runAt` (counts as a failed attempt). */
export class RetryLater extends Error {
  constructor(
    readonly runAt: Date,
    message: string,
  ) {
    super(message);
  }
}

/** Throw to run the job again at `runAt` without counting an attempt (it chose to wait, it did not fail). */
export class Snooze extends Error {
  constructor(
    readonly runAt: Date,
    reason: string,
  ) {
    super(reason);
  }
}

/** Throw when retrying cannot help: the job is discarded at once. */
export class PermanentFailure extends Error {}
