// The job runner: claims due jobs from the jobs table and runs them, `concurrency` at a time. Its parts:
// listener.ts (LISTEN for new jobs), producer.ts (when to claim, the local queue), completer.ts (recording
// outcomes, successes in batches); here, the lanes, running the jobs and the heartbeat. A lane is a producer
// with slots of its own that claims only its lane's kinds (db/jobs/claimJobs.ts), so receipt deliveries and
// sends never wait for each other's slots. Each claimed job holds a lease
// that the heartbeat extends; a worker that dies stops extending it, and the rescuer (maintenance/) makes its
// jobs claimable again.
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import {
  claimJobs,
  extendLeases,
  parseWakeUpPayload,
  releaseJobs,
  type ClaimedJob,
  type JobHandoff,
  type JobLane,
} from "../db/jobs/index.js";
import type { Db } from "../db/knex.js";
import type { Logger } from "../logger.js";
import { Completer } from "./completer.js";
import { JobListener } from "./listener.js";
import { Producer } from "./producer.js";
import { JobExecution, toError } from "./execution.js";
import { PermanentFailure, type JobContext, type JobHandlers } from "./types.js";

/** A handler as the runner calls it: by kind, on rows whose payload the kind's handler types. */
type AnyHandler =
  | ((job: ClaimedJob, ctx: JobContext) => Promise<void>)
  | { batch: (jobs: ClaimedJob[], ctx: JobContext) => Promise<(Error | undefined)[]> };

export interface RunnerOptions {
  db: Db;
  /** Connection string for the LISTEN connection (a pooled connection cannot be held for it). */
  databaseUrl: string;
  log: Logger;
  /** The production map is typed per kind (JobHandlers); benchmarks run kinds of their own. */
  handlers: Partial<JobHandlers> | Record<string, (job: ClaimedJob, ctx: JobContext) => Promise<void>>;
  /** Slots of a runner without `lanes`, which claims every kind in one lane. */
  concurrency?: number;
  /**
   * Jobs claimed per round trip (default: `concurrency`). Claimed jobs wait in a local queue until a slot is
   * free; their leases are extended like those of running jobs. A larger value means fewer claims (each one a
   * commit) when the queue is deep, at the price of jobs held by one worker while another may be idle.
   */
  prefetch?: number;
  /** Lanes, each with slots and a claim of its own; without them, one lane of `concurrency` slots claims all. */
  lanes?: LaneOptions[];
  leaseMs?: number;
  safetyPollMs?: number;
  workerId?: string;
  /** The connectors this worker holds bound sessions of: the default lane claims the send jobs handed to them. */
  heldConnectors?: () => readonly string[];
  /** Awaited after a claim that took send jobs, before any runs: the router catches up with routing changes. */
  beforeSends?: () => Promise<void>;
  /** The leases of rowless jobs (ClaimedJob.rowless), which are not in the job table. */
  rowless?: RowlessLeases;
}

/** Where the leases of jobs without a row live (receipt deliveries handed to their worker: webhook_deliveries). */
export interface RowlessLeases {
  /** Extends this worker's leases of `ids`; returns those it still holds. */
  extend(workerId: string, ids: string[], leaseMs: number): Promise<string[]>;
  /** On shutdown: gives what this worker still holds to any worker (as jobs, due now); returns how many. */
  release(workerId: string): Promise<number>;
}

export interface LaneOptions {
  lane: JobLane;
  concurrency: number;
  /** Jobs claimed per round trip (default and at least: `concurrency`). */
  prefetch?: number;
}

interface Lane {
  name: JobLane | undefined;
  concurrency: number;
  producer: Producer;
  running: number;
  wakeQueued: boolean;
  /** The default lane's fair claim starts after this account (the last one its previous claim served). */
  cursor: string | null;
}

interface RunningJob {
  promise: Promise<void>;
  abort: (reason: Error) => void;
}

export class JobRunner {
  readonly workerId: string;
  private readonly db: Db;
  private readonly log: Logger;
  private readonly handlers: Record<string, AnyHandler>;
  private readonly leaseMs: number;
  private readonly lanes: Lane[];
  private readonly listener: JobListener;
  private readonly completer: Completer;
  private readonly running = new Map<string, RunningJob>();
  /** The ids among `running` and the queues that are rowless jobs (their leases are RowlessLeases'). */
  private readonly rowlessIds = new Set<string>();
  private readonly rowless: RowlessLeases | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private stopping = false;

  constructor(opts: RunnerOptions) {
    this.db = opts.db;
    this.log = opts.log.child({ component: "job-runner" });
    // The one place a handler meets an untyped row: claimed rows are matched to handlers by kind, and every row
    // of a kind was inserted with that kind's payload type (db/jobs/kinds.ts).
    this.handlers = opts.handlers as Record<string, AnyHandler>;
    this.leaseMs = opts.leaseMs ?? 15_000;
    this.workerId = opts.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
    this.completer = new Completer(this.db, this.workerId, this.log);
    this.rowless = opts.rowless;
    const held = opts.heldConnectors ?? (() => []);
    const beforeSends = opts.beforeSends;
    const lanes: (Omit<LaneOptions, "lane"> & { lane: JobLane | undefined })[] = opts.lanes ?? [
      { lane: undefined, concurrency: opts.concurrency ?? 10, prefetch: opts.prefetch },
    ];
    this.lanes = lanes.map(({ lane: name, concurrency, prefetch }) => {
      const lane: Lane = {
        name,
        concurrency,
        running: 0,
        wakeQueued: false,
        cursor: null,
        producer: undefined as unknown as Producer,
      };
      lane.producer = new Producer({
        concurrency,
        prefetch: Math.max(prefetch ?? concurrency, concurrency),
        safetyPollMs: opts.safetyPollMs ?? 5_000,
        claim: async (limit) => {
          const claim = await claimJobs(this.db, this.workerId, limit, this.leaseMs, name, lane.cursor, held());
          if (claim.lastAccount) lane.cursor = claim.lastAccount;
          if (beforeSends && claim.jobs.some((j) => j.kind === "send_message")) await beforeSends();
          return claim;
        },
        start: (jobs) => this.dispatch(lane, jobs),
        running: () => lane.running,
        log: name ? this.log.child({ lane: name }) : this.log,
      });
      return lane;
    });
    this.listener = new JobListener({
      databaseUrl: opts.databaseUrl,
      log: this.log,
      // The payload is a time, and the lane when the new jobs are all of one: only that lane looks. The
      // simulator's reports woke the receipts lane of every worker for nothing (an empty claim each), and the
      // handed-over receipts' leftovers the default lane.
      onNotify: (payload) => {
        const { time, lane: only } = parseWakeUpPayload(payload);
        for (const lane of this.lanes)
          if (only === undefined || lane.name === undefined || lane.name === only) lane.producer.onNotification(time);
      },
      onReconnect: () => this.wake(),
    });
  }

  async start(): Promise<void> {
    await this.listener.start();
    this.heartbeat = setInterval(() => void this.beat(), Math.max(100, Math.floor(this.leaseMs / 3)));
    const lanes = Object.fromEntries(this.lanes.map((l) => [l.name ?? "all", l.concurrency]));
    this.log.info({ workerId: this.workerId, lanes }, "job runner started");
    this.wake();
  }

  /** Number of jobs this runner is executing right now. */
  get busy(): number {
    return this.running.size;
  }

  /** Claims and starts jobs while there is room; when the queue is dry, arms the timer for the next one. */
  wake(): void {
    for (const lane of this.lanes) lane.producer.wake();
  }

  /** Stops claiming, waits for running jobs until `deadlineMs`, releases what is left, flushes completions. */
  async stop(deadlineMs = 7_000): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    await this.listener.stop();
    await Promise.all(this.lanes.map((l) => l.producer.stop())); // a claim in flight commits before we release what we hold
    const all = Promise.allSettled([...this.running.values()].map((r) => r.promise));
    const timedOut = await Promise.race([
      all.then(() => false),
      new Promise<boolean>((r) => setTimeout(() => r(true), deadlineMs).unref()),
    ]);
    if (timedOut) for (const r of this.running.values()) r.abort(new Error("shutting down"));
    clearInterval(this.heartbeat);
    await this.completer.flush();
    try {
      const released = (await releaseJobs(this.db, this.workerId)) + ((await this.rowless?.release(this.workerId)) ?? 0);
      this.log.info({ released, workerId: this.workerId }, "job runner stopped");
    } catch (error) {
      this.log.warn({ err: error, workerId: this.workerId }, "could not release held jobs; their leases will expire");
    }
  }

  /** Starts claimed jobs: those of a batch kind together, the others one by one. */
  private dispatch(lane: Lane, jobs: ClaimedJob[]): void {
    const batches = new Map<string, ClaimedJob[]>();
    for (const job of jobs) {
      const handler = this.handlers[job.kind];
      if (handler && "batch" in handler) {
        const group = batches.get(job.kind);
        if (group) group.push(job);
        else batches.set(job.kind, [job]);
      } else this.execute(lane, [job], async (ctx) => [await runOne(handler, job, ctx)]);
    }
    for (const [kind, group] of batches) {
      const handler = this.handlers[kind] as Extract<AnyHandler, { batch: unknown }>;
      this.execute(lane, group, (ctx) => handler.batch(group, ctx));
    }
  }

  /** Runs jobs as one unit (execution.ts), each holding its lane's slot until it is settled. */
  private execute(lane: Lane, jobs: ClaimedJob[], run: (ctx: JobContext) => Promise<(Error | undefined)[]>): void {
    const execution = new JobExecution(
      {
        workerId: this.workerId,
        log: this.log,
        completer: this.completer,
        freed: (job) => this.freed(lane, job),
        // A job due again (retried, snoozed) arms this lane's timer for its time: after a dry claim, nothing
        // else would make the lane look for it before the safety poll (producer.ts).
        dueAgain: (at) => lane.producer.onNotification(String(at.getTime())),
        handoff: (name) => this.handoff(name),
      },
      jobs,
    );
    lane.running += jobs.length;
    jobs.forEach((job, i) => this.running.set(job.id, { promise: execution.ends[i]!, abort: (reason) => execution.abort(reason) }));
    execution.start(run);
  }

  private freed(lane: Lane, job: ClaimedJob): void {
    this.running.delete(job.id);
    this.rowlessIds.delete(job.id);
    lane.running--;
    // Once for the jobs freed in this turn: a batch's jobs settled together start the next batch together.
    if (!lane.wakeQueued) {
      lane.wakeQueued = true;
      queueMicrotask(() => {
        lane.wakeQueued = false;
        lane.producer.slotsFreed();
      });
    }
  }

  /**
   * The lane that runs jobs of `name` (that lane, or the one lane of a runner without lanes), as a handoff:
   * jobs inserted through it are claimed by this worker at once (docs/ARCHITECTURE.md "Handoff").
   */
  handoff(name: JobLane): JobHandoff | undefined {
    const producer = this.lanes.find((l) => l.name === name || l.name === undefined)?.producer;
    if (!producer) return undefined;
    return {
      workerId: this.workerId,
      leaseMs: this.leaseMs,
      reserve: (n) => producer.reserve(n),
      adopt: (jobs, reserved) => {
        for (const job of jobs) if (job.rowless) this.rowlessIds.add(job.id);
        producer.adopt(jobs, reserved);
      },
      release: (reserved) => producer.release(reserved),
    };
  }

  /**
   * Extends the leases of running and queued jobs, and of those done whose completion is still being written;
   * a job whose lease was lost is aborted or dropped.
   */
  private async beat(): Promise<void> {
    const all = [...this.running.keys(), ...this.lanes.flatMap((l) => l.producer.queued.map((j) => j.id)), ...this.completer.inHand()];
    if (all.length === 0) return;
    const ids = all.filter((id) => !this.rowlessIds.has(id));
    const rowless = all.filter((id) => this.rowlessIds.has(id));
    try {
      const held = new Set([
        ...(ids.length > 0 ? await extendLeases(this.db, this.workerId, ids, this.leaseMs) : []),
        ...(rowless.length > 0 && this.rowless ? await this.rowless.extend(this.workerId, rowless, this.leaseMs) : []),
        // A runner without RowlessLeases cannot extend them: their leases run their course.
        ...(this.rowless ? [] : rowless),
      ]);
      const asked = new Set(all);
      for (const { producer } of this.lanes) producer.queued = producer.queued.filter((j) => held.has(j.id) || !asked.has(j.id));
      for (const id of all) {
        if (held.has(id)) continue;
        if (this.running.has(id)) {
          this.log.warn({ jobId: id }, "lost the lease of a running job");
          this.running.get(id)!.abort(new Error("lease lost"));
        } else this.rowlessIds.delete(id);
      }
    } catch (error) {
      this.log.warn({ err: error }, "heartbeat failed");
    }
  }
}

async function runOne(handler: AnyHandler | undefined, job: ClaimedJob, ctx: JobContext): Promise<Error | undefined> {
  try {
    if (!handler) throw new PermanentFailure(`no handler for job kind ${job.kind}`);
    await (handler as Exclude<AnyHandler, { batch: unknown }>)(job, ctx);
    return undefined;
  } catch (error) {
    return toError(error);
  }
}
