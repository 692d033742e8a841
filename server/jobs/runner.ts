// The job runner: claims due jobs from the jobs table and runs them, `concurrency` at a time.
//
// Wake-ups: LISTEN jobs_inserted (a NOTIFY is sent by every insert, at commit) plus a timer armed for the
// next run_at, so a job scheduled for 09:00:00.000 is claimed at 09:00:00.000 and not at the next poll. A slow
// safety poll covers a lost notification. Each claimed job holds a lease that a heartbeat extends; a worker
// that dies stops extending it, and the rescuer makes its jobs claimable again. Completions are collected and
// written in batches: one UPDATE for many jobs instead of one per job.
import { hostname } from "node:os";
import { randomBytes } from "node:crypto";
import pg from "pg";
import {
  JOBS_CHANNEL,
  claimJobs,
  completeJobs,
  extendLeases,
  failJob,
  releaseJobs,
  snoozeJob,
  type ClaimedJob,
} from "../db/jobs/index.js";
import type { Db } from "../db/knex.js";
import type { Logger } from "../logger.js";
import { PermanentFailure, RetryLater, Snooze, type JobContext, type JobHandlers } from "./types.js";

/** A handler as the runner calls it: by kind, on rows whose payload the kind's handler types. */
type AnyHandler = ((job: ClaimedJob, ctx: JobContext) => Promise<void>) | { batch: (jobs: ClaimedJob[], ctx: JobContext) => Promise<(Error | undefined)[]> };
type BatchJobHandler = Extract<AnyHandler, { batch: unknown }>;
type JobHandler = Exclude<AnyHandler, { batch: unknown }>;
type Handler = AnyHandler;

export interface RunnerOptions {
  db: Db;
  /** Connection string for the LISTEN connection (a pooled connection cannot be held for it). */
  databaseUrl: string;
  log: Logger;
  /** The production map is typed per kind (JobHandlers); benchmarks run kinds of their own. */
  handlers: Partial<JobHandlers> | Record<string, (job: ClaimedJob, ctx: JobContext) => Promise<void>>;
  concurrency?: number;
  /**
   * Jobs claimed per round trip (default: `concurrency`). Claimed jobs wait in a local queue until a slot is
   * free; their leases are extended like those of running jobs. A larger value means fewer claims (each one a
   * commit) when the queue is deep, at the price of jobs held by one worker while another may be idle.
   */
  prefetch?: number;
  leaseMs?: number;
  safetyPollMs?: number;
  workerId?: string;
}

const COMPLETION_BATCH = 100;
const MIN_TIMER_GAP_MS = 5;
const COMPLETION_DELAY_MS = 2;

/** Default retry delay for a failed job: 1 s, 2 s, 4 s … capped at 5 min, ±10 %. */
export function defaultBackoffMs(attempt: number): number {
  return Math.min(1000 * 2 ** (attempt - 1), 300_000) * (0.9 + Math.random() * 0.2);
}

export class JobRunner {
  readonly workerId: string;
  private readonly db: Db;
  private readonly log: Logger;
  private readonly handlers: Record<string, Handler>;
  private readonly concurrency: number;
  private readonly prefetch: number;
  private readonly leaseMs: number;
  private readonly safetyPollMs: number;
  private readonly databaseUrl: string;

  private readonly running = new Map<string, { promise: Promise<void>; abort: (reason: Error) => void }>();
  /** Claimed, not started yet (the local queue). */
  private queued: ClaimedJob[] = [];
  private stopping = false;
  private fetching: Promise<void> | undefined;
  private fetchAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private timerAt: number | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private listener: pg.Client | undefined;
  private completions: string[] = [];
  private completionTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private flushInFlight = false;

  constructor(opts: RunnerOptions) {
    this.db = opts.db;
    this.databaseUrl = opts.databaseUrl;
    this.log = opts.log.child({ component: "job-runner" });
    // The one place a handler meets an untyped row: claimed rows are matched to handlers by kind, and every row
    // of a kind was inserted with that kind's payload type (db/jobs/kinds.ts).
    this.handlers = opts.handlers as Record<string, Handler>;
    this.concurrency = opts.concurrency ?? 10;
    this.prefetch = Math.max(opts.prefetch ?? this.concurrency, this.concurrency);
    this.leaseMs = opts.leaseMs ?? 15_000;
    this.safetyPollMs = opts.safetyPollMs ?? 5_000;
    this.workerId = opts.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
  }

  async start(): Promise<void> {
    await this.listen();
    this.heartbeat = setInterval(() => void this.beat(), Math.max(100, Math.floor(this.leaseMs / 3)));
    this.log.info({ workerId: this.workerId, concurrency: this.concurrency, prefetch: this.prefetch }, "job runner started");
    this.wake();
  }

  /** Number of jobs this runner is executing right now. */
  get busy(): number {
    return this.running.size;
  }

  /** Stops claiming, waits for running jobs until `deadlineMs`, releases what is left, flushes completions. */
  async stop(deadlineMs = 7_000): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    clearTimeout(this.timer);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.fetching; // a claim in flight commits before we release what we hold
    this.queued = []; // released below with everything else this worker holds
    const all = Promise.allSettled([...this.running.values()].map((r) => r.promise));
    const timedOut = await Promise.race([all.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), deadlineMs).unref())]);
    if (timedOut) for (const r of this.running.values()) r.abort(new Error("shutting down"));
    clearInterval(this.heartbeat);
    await this.flushCompletions();
    try {
      const released = await releaseJobs(this.db, this.workerId);
      this.log.info({ released, workerId: this.workerId }, "job runner stopped");
    } catch (error) {
      this.log.warn({ err: error, workerId: this.workerId }, "could not release held jobs; their leases will expire");
    }
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl, application_name: "sms-platform-listener" });
    client.on("notification", (n) => this.onNotification(n.payload));
    client.on("error", (error) => {
      this.log.warn({ err: error }, "LISTEN connection lost; reconnecting");
      void this.reconnect(client);
    });
    await client.connect();
    await client.query(`LISTEN ${JOBS_CHANNEL}`);
    this.listener = client;
  }

  private async reconnect(dead: pg.Client, delayMs = 250): Promise<void> {
    if (this.stopping || this.listener !== dead) return;
    this.listener = undefined;
    await dead.end().catch(() => undefined);
    while (!this.stopping) {
      try {
        await this.listen();
        this.wake(); // whatever was inserted while we were deaf
        return;
      } catch (error) {
        this.log.warn({ err: error, delayMs }, "LISTEN reconnect failed");
        await new Promise((r) => setTimeout(r, delayMs));
        delayMs = Math.min(delayMs * 2, 5_000);
      }
    }
  }

  /** A job due now wakes the runner; a future one only moves the timer earlier (no query). */
  private onNotification(payload: string | undefined): void {
    const runAt = payload ? Number(payload) : NaN;
    if (!Number.isFinite(runAt)) return this.wake();
    const delay = runAt - Date.now();
    if (delay <= 0) this.wake();
    else if (this.timerAt === undefined || runAt < this.timerAt) this.setTimer(delay);
  }

  /** Claims and starts jobs while there is room; when the queue is dry, arms the timer for the next one. */
  wake(): void {
    if (this.stopping) return;
    this.startQueued();
    if (!this.wantsMore()) return;
    if (this.fetching) {
      this.fetchAgain = true;
      return;
    }
    this.fetching = this.fetch().finally(() => {
      this.fetching = undefined;
      if (this.fetchAgain) {
        this.fetchAgain = false;
        this.wake();
      }
    });
  }

  private async fetch(): Promise<void> {
    try {
      while (!this.stopping) {
        this.startQueued();
        if (!this.wantsMore()) return;
        this.fetchAgain = false;
        const limit = this.prefetch - this.queued.length;
        const { jobs, nextDueInMs } = await claimJobs(this.db, this.workerId, limit, this.leaseMs);
        // A claim that was in flight when stop() began: these jobs are released by stop(), not run.
        if (this.stopping) return;
        this.queued.push(...jobs);
        this.startQueued();
        if (jobs.length < limit) {
          // Dry for now: sleep until the next job is due (measured on the database's clock, the one the
          // claim compares run_at with), or the safety poll — but claim at most every MIN_TIMER_GAP_MS this
          // way: a steady stream of due jobs (1,000 messages/s) otherwise meant one claim per job, and the
          // worker fell behind by half a second (bench:dispatch precision).
          const due = Math.max(nextDueInMs ?? this.safetyPollMs, MIN_TIMER_GAP_MS);
          this.setTimer(Math.min(due, this.safetyPollMs));
          return;
        }
      }
    } catch (error) {
      this.log.error({ err: error }, "claiming jobs failed; retrying in 1 s");
      this.setTimer(1000);
    }
  }

  private setTimer(ms: number): void {
    clearTimeout(this.timer);
    if (this.stopping) return;
    this.timerAt = Date.now() + ms;
    this.timer = setTimeout(() => {
      this.timerAt = undefined;
      this.wake();
    }, Math.ceil(ms));
  }

  /**
   * Whether to claim now: when a slot is free and nothing waits for it, or — with a local queue — once the
   * queue is down to a quarter of its size (at least one slot-full), so the next claim is in flight while the
   * rest of the queue still runs: claiming only when it ran dry left every slot idle for a round trip.
   */
  private wantsMore(): boolean {
    const room = this.concurrency - this.running.size;
    if (room > this.queued.length) return true;
    return this.prefetch > this.concurrency && this.queued.length < Math.max(this.concurrency, this.prefetch / 4);
  }

  /** Starts queued jobs while there are free slots. */
  private startQueued(): void {
    const room = this.concurrency - this.running.size;
    if (room > 0 && this.queued.length > 0) this.dispatch(this.queued.splice(0, room));
  }

  /** Starts claimed jobs: those of a batch kind together, the others one by one. */
  private dispatch(jobs: ClaimedJob[]): void {
    const batches = new Map<string, ClaimedJob[]>();
    for (const job of jobs) {
      const handler = this.handlers[job.kind];
      if (handler && "batch" in handler) batches.set(job.kind, [...(batches.get(job.kind) ?? []), job]);
      else this.execute([job], async (ctx) => [await this.runSingle(handler, job, ctx)]);
    }
    for (const [kind, group] of batches) {
      const handler = this.handlers[kind] as BatchJobHandler;
      this.execute(group, (ctx) => handler.batch(group, ctx));
    }
  }

  private async runSingle(handler: Handler | undefined, job: ClaimedJob, ctx: JobContext): Promise<Error | undefined> {
    try {
      if (!handler) throw new PermanentFailure(`no handler for job kind ${job.kind}`);
      await (handler as JobHandler)(job, ctx);
      return undefined;
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  }

  private execute(jobs: ClaimedJob[], run: (ctx: JobContext) => Promise<(Error | undefined)[]>): void {
    const first = jobs[0]!;
    // The job's logger and abort signal are made on first use: for short jobs that never log, creating them
    // up front was 8 % of a worker's CPU in bench:queue (a pino child serialises its bindings at once).
    let log: Logger | undefined;
    let controller: AbortController | undefined;
    let abortReason: Error | undefined;
    const logger = () =>
      (log ??= this.log.child(jobs.length === 1 ? { jobId: first.id, kind: first.kind, attempt: first.attempt } : { kind: first.kind, batch: jobs.length }));
    const ctx: JobContext = {
      workerId: this.workerId,
      get log() {
        return logger();
      },
      get signal() {
        if (!controller) {
          controller = new AbortController();
          if (abortReason) controller.abort(abortReason);
        }
        return controller.signal;
      },
    };
    const abort = (reason: Error) => {
      abortReason ??= reason;
      controller?.abort(reason);
    };
    const promise = (async () => {
      let outcomes: (Error | undefined)[];
      try {
        outcomes = await run(ctx);
      } catch (error) {
        outcomes = jobs.map(() => (error instanceof Error ? error : new Error(String(error))));
      }
      await Promise.all(
        jobs.map((job, i) => (outcomes[i] === undefined ? this.complete(job.id) : this.handleFailure(job, outcomes[i], logger()))),
      );
    })().finally(() => {
      for (const job of jobs) this.running.delete(job.id);
      this.wake();
    });
    for (const job of jobs) this.running.set(job.id, { promise, abort });
  }

  private async handleFailure(job: ClaimedJob, error: unknown, log: Logger): Promise<void> {
    try {
      if (error instanceof Snooze) {
        await snoozeJob(this.db, this.workerId, job.id, error.runAt);
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      const retryAt =
        error instanceof PermanentFailure ? null : error instanceof RetryLater ? error.runAt : new Date(Date.now() + defaultBackoffMs(job.attempt));
      if (!(error instanceof RetryLater)) log.warn({ err: error }, "job failed");
      await failJob(this.db, this.workerId, job.id, message, retryAt);
    } catch (dbError) {
      // The lease will expire and the rescuer will make the job claimable again.
      log.error({ err: dbError }, "recording a job failure failed");
    }
  }

  /**
   * Completions are written in batches: the first waits COMPLETION_DELAY_MS for company, and while one batch
   * is being written the next collects everything that finishes meanwhile (one statement however many).
   */
  private complete(id: string): void {
    this.completions.push(id);
    if (this.flushInFlight) return;
    if (this.completions.length >= COMPLETION_BATCH) void this.flushCompletions();
    else this.completionTimer ??= setTimeout(() => void this.flushCompletions(), COMPLETION_DELAY_MS);
  }

  private flushCompletions(): Promise<void> {
    clearTimeout(this.completionTimer);
    this.completionTimer = undefined;
    const ids = this.completions.splice(0);
    if (ids.length === 0) return this.flushing;
    this.flushInFlight = true;
    this.flushing = this.flushing.then(async () => {
      try {
        await completeJobs(this.db, this.workerId, ids);
      } catch (error) {
        this.log.error({ err: error, count: ids.length }, "completing jobs failed; the rescuer will re-run them");
      } finally {
        this.flushInFlight = false;
        if (this.completions.length > 0) void this.flushCompletions();
      }
    });
    return this.flushing;
  }

  private async beat(): Promise<void> {
    const ids = [...this.running.keys(), ...this.queued.map((j) => j.id)];
    if (ids.length === 0) return;
    try {
      const held = new Set(await extendLeases(this.db, this.workerId, ids, this.leaseMs));
      const asked = new Set(ids);
      this.queued = this.queued.filter((j) => held.has(j.id) || !asked.has(j.id));
      for (const id of ids) {
        if (!held.has(id) && this.running.has(id)) {
          this.log.warn({ jobId: id }, "lost the lease of a running job");
          this.running.get(id)!.abort(new Error("lease lost"));
        }
      }
    } catch (error) {
      this.log.warn({ err: error }, "heartbeat failed");
    }
  }
}
