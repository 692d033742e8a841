// One unit of work of the runner (runner.ts): a job, or a batch of one kind's jobs, run together but each
// holding its slot only until it is settled — by the handler through `ctx.settle` as soon as it ends, or with
// the returned outcomes when the unit ends. Its life: started (slots taken) → each job settled once (outcome
// recorded: completed in a batch, failed, or completed by the handler's own statement) → freed (slot back,
// the lane told).
import type { ClaimedJob, JobHandoff, JobLane } from "../db/jobs/index.js";
import type { Logger } from "../logger.js";
import type { Completer } from "./completer.js";
import { JOB_COMPLETED, RetryLater, Snooze, type JobContext } from "./types.js";

/** What an execution needs of its runner and lane. */
export interface ExecutionHost {
  workerId: string;
  log: Logger;
  completer: Completer;
  /** A job's slot is free again (called once per job). */
  freed(job: ClaimedJob): void;
  /** A failed job is due again at `at` (retried or snoozed): the lane arms its timer for it. */
  dueAgain(at: Date): void;
  handoff(lane: JobLane): JobHandoff | undefined;
}

type Outcome = Error | undefined | typeof JOB_COMPLETED;

export const toError = (e: unknown) => (e instanceof Error ? e : new Error(String(e)));

export class JobExecution {
  /** Resolve when each job's slot is free. */
  readonly ends: Promise<void>[];
  private readonly resolvers: (() => void)[] = [];
  private readonly settled: boolean[];
  // The logger and abort signal are made on first use: for short jobs that never log, making them up front was
  // a measurable share of a worker's CPU (a pino child serialises its bindings at once).
  private log: Logger | undefined;
  private controller: AbortController | undefined;
  private abortReason: Error | undefined;

  constructor(
    private readonly host: ExecutionHost,
    private readonly jobs: ClaimedJob[],
  ) {
    this.ends = jobs.map(() => new Promise<void>((resolve) => this.resolvers.push(resolve)));
    this.settled = jobs.map(() => false);
  }

  /** Runs the unit; whatever it does not settle itself is settled with its returned outcomes (or its error). */
  start(run: (ctx: JobContext) => Promise<(Error | undefined)[]>): void {
    void (async () => {
      let outcomes: (Error | undefined)[];
      try {
        outcomes = await run(this.context());
      } catch (error) {
        outcomes = this.jobs.map(() => toError(error));
      }
      this.jobs.forEach((_, i) => this.settle(i, outcomes[i]));
    })();
  }

  /** Aborts the unit (its lease was lost, or shutdown passed its deadline): the handler's signal fires. */
  abort(reason: Error): void {
    this.abortReason ??= reason;
    this.controller?.abort(reason);
  }

  private logger(): Logger {
    const first = this.jobs[0]!;
    return (this.log ??= this.host.log.child(
      this.jobs.length === 1
        ? { jobId: first.id, kind: first.kind, attempt: first.attempt }
        : { kind: first.kind, batch: this.jobs.length },
    ));
  }

  private signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortReason) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  private context(): JobContext {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the getters below read the execution, not the context
    const execution = this;
    return {
      workerId: this.host.workerId,
      get log() {
        return execution.logger();
      },
      get signal() {
        return execution.signal();
      },
      settle: (index, outcome) => this.settle(index, outcome),
      handoff: (lane) => this.host.handoff(lane),
    };
  }

  /** Records job `index`'s outcome, once, and frees its slot when that is recorded. */
  private settle(index: number, outcome: Outcome): void {
    const job = this.jobs[index];
    if (!job || this.settled[index]) return;
    this.settled[index] = true;
    const free = () => {
      this.host.freed(job);
      this.resolvers[index]!();
    };
    if (outcome === JOB_COMPLETED) return free(); // deleted by the handler's own statement
    if (job.rowless) {
      // No row to write: its handler wrote the outcome, and a retry or a wait as a job of its own, which this
      // lane looks for then. Any other error was not written: the lease runs out, and the rescuer gives it a job.
      if (outcome instanceof RetryLater || outcome instanceof Snooze) this.host.dueAgain(outcome.runAt);
      else if (outcome !== undefined)
        this.logger().warn({ err: outcome, jobId: job.id }, "a rowless job ended without writing its outcome");
      return free();
    }
    if (outcome === undefined) {
      void this.host.completer.complete(job.id); // written in a batch; the slot is free already
      return free();
    }
    void this.host.completer
      .fail(job, outcome, this.logger())
      .then((dueAt) => {
        if (dueAt) this.host.dueAgain(dueAt);
      })
      .finally(free);
  }
}
