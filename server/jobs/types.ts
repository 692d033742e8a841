import type { JobRow } from "../db/jobs/index.js";
import type { Logger } from "../logger.js";

export interface JobContext {
  workerId: string;
  log: Logger;
  /** Aborted when the worker lost the job's lease or is shutting down past its deadline. */
  signal: AbortSignal;
}

export type JobHandler = (job: JobRow, ctx: JobContext) => Promise<void>;

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
