import type { JobHandoff, JobKind, JobLane, JobRow } from "../db/jobs/index.js";
import type { Logger } from "../logger.js";

export interface JobContext {
  workerId: string;
  log: Logger;
  /** Aborted when the worker lost the job's lease or is shutting down past its deadline. */
  signal: AbortSignal;
  /**
   * Batch handlers: records how job `index` of the batch ended and frees its slot now, instead of when the
   * whole batch returns (a slow job then holds up no other). A job settled this way ignores its entry in the
   * returned outcomes; a second settle of the same job is ignored. Single-job handlers need not call it.
   * JOB_COMPLETED: the job succeeded and the handler's own statement already deleted it (completeHeldJobsSql).
   */
  settle: (index: number, outcome: Error | undefined | typeof JOB_COMPLETED) => void;
  /**
   * This worker's lane that runs jobs of `lane`, to insert them already claimed for it (JobHandoff); undefined
   * when this runner has no such lane.
   */
  handoff: (lane: JobLane) => JobHandoff | undefined;
}

/** Runs one job of kind K. */
export type JobHandler<K extends JobKind = JobKind> = (job: JobRow<K>, ctx: JobContext) => Promise<void>;

/**
 * Runs all claimed jobs of one kind together (one claim of due sends becomes a few set-wise statements
 * instead of a few per message). Returns one outcome per job, in order: undefined for success, or the error
 * that job failed with (RetryLater, Snooze, PermanentFailure or any other). A handler whose jobs end at
 * different times (HTTP calls) settles each as it ends with `ctx.settle`.
 */
export interface BatchJobHandler<K extends JobKind = JobKind> {
  batch: (jobs: JobRow<K>[], ctx: JobContext) => Promise<(Error | undefined)[]>;
}

export type Handler<K extends JobKind = JobKind> = JobHandler<K> | BatchJobHandler<K>;

/** A handler for every job kind, each typed with its own payload. */
export type JobHandlers = { [K in JobKind]: Handler<K> };

/** A settled job's outcome when the handler completed the job itself, in the statement that recorded its work. */
export const JOB_COMPLETED = Symbol("job completed");

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
    /**
     * Wake the workers for `runAt` once the snooze is written (a NOTIFY), for a job that must start on time
     * shortly: otherwise a worker with nothing to do finds it at its safety poll.
     */
    readonly wake = false,
    /**
     * Handed to the workers holding this connector's sessions: only they claim it (jobs.connector_id, taken off
     * by their claim). Send jobs only (docs/ROUTING.md, "Sessions").
     */
    readonly connectorId: string | null = null,
  ) {
    super(reason);
  }
}

/** Throw when retrying cannot help: the job is discarded at once. */
export class PermanentFailure extends Error {}
