// Claims due jobs into a local queue and hands them to free slots (River's producer). It decides when to
// claim: now (a slot is free, or the prefetched queue runs low), at the next job's run_at (a timer, so a job
// due at 09:00:00.000 starts then, not at the next poll), or at the safety poll, which covers a lost NOTIFY.
// It knows nothing of the database: `claim` is the jobs table's claim, a stand-in in the unit tests.
import type { Claim, ClaimedJob } from "../db/jobs/index.js";
import type { Logger } from "../logger.js";

export interface ProducerOptions {
  concurrency: number;
  /** Jobs claimed per round trip (at least `concurrency`); the surplus waits in the local queue. */
  prefetch: number;
  safetyPollMs: number;
  claim: (limit: number) => Promise<Claim>;
  /** Starts jobs; each occupies a slot until `running()` no longer counts it. */
  start: (jobs: ClaimedJob[]) => void;
  running: () => number;
  log: Logger;
}

/** A steady stream of due jobs must not mean one claim per job: claims come at most this often by timer. */
const MIN_TIMER_GAP_MS = 5;
/**
 * After a claim that found the lane dry, the next one waits this long, however many slots free meanwhile.
 * Slots are freed job by job (runner.ts), so without it a trickle of due jobs (receipts while a campaign is
 * sent) was claimed a few at a time: bench:dispatch made 2,510 claims instead of 802 and ran 35-55 % slower
 * (bench/NOTES.md). A job due meanwhile waits at most this long.
 */
const DRY_CLAIM_GAP_MS = 10;
const CLAIM_RETRY_MS = 1000;

export class Producer {
  /** Claimed, not started yet. */
  queued: ClaimedJob[] = [];
  private stopping = false;
  private fetching: Promise<void> | undefined;
  private fetchAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private timerAt: number | undefined;
  /** Until when claims wait, after one that found the lane dry. */
  private dryUntil = 0;

  constructor(private readonly opts: ProducerOptions) {}

  /** When the timer will next wake the producer (ms since the epoch), if it is armed. */
  get nextWakeAt(): number | undefined {
    return this.timerAt;
  }

  /** A job due now wakes the producer; a future one only moves the timer earlier (no query). */
  onNotification(payload: string | undefined): void {
    const runAt = payload ? Number(payload) : NaN;
    if (!Number.isFinite(runAt)) {
      this.wake();
      return;
    }
    const delay = runAt - Date.now();
    if (delay <= 0) this.wake();
    else if (this.timerAt === undefined || runAt < this.timerAt) this.setTimer(delay);
  }

  /** Starts queued jobs on free slots and claims more while there is room; one claim in flight at a time. */
  wake(): void {
    if (this.stopping) return;
    this.startQueued();
    if (!this.wantsMore()) return;
    const wait = this.dryUntil - Date.now();
    if (wait > 0) {
      if (this.timerAt === undefined || this.timerAt > this.dryUntil) this.setTimer(wait);
      return;
    }
    if (this.fetching !== undefined) {
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

  /** Stops claiming; waits for a claim in flight (its jobs are dropped from the queue, to be released). */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.timer);
    this.timerAt = undefined;
    await this.fetching;
    this.queued = [];
  }

  /**
   * Whether to claim now: when a slot is free and nothing waits for it, or — with a local queue — once the
   * queue is down to a quarter of its size (at least one slot-full), so the next claim is in flight while the
   * rest of the queue still runs: claiming only when it ran dry left every slot idle for a round trip.
   */
  wantsMore(): boolean {
    const { concurrency, prefetch } = this.opts;
    const room = concurrency - this.opts.running();
    if (room > this.queued.length) return true;
    return prefetch > concurrency && this.queued.length < Math.max(concurrency, prefetch / 4);
  }

  private startQueued(): void {
    const room = this.opts.concurrency - this.opts.running();
    if (room > 0 && this.queued.length > 0) this.opts.start(this.queued.splice(0, room));
  }

  private async fetch(): Promise<void> {
    try {
      while (!this.stopping) {
        this.startQueued();
        if (!this.wantsMore()) return;
        this.fetchAgain = false;
        const limit = this.opts.prefetch - this.queued.length;
        const { jobs, nextDueInMs } = await this.opts.claim(limit);
        if (this.stopping) return; // claimed while stop() began: released by the runner, not run
        this.queued.push(...jobs);
        this.startQueued();
        if (jobs.length < limit) {
          this.dryUntil = Date.now() + DRY_CLAIM_GAP_MS;
          // Dry for now: sleep until the next job is due (on the database's clock, the one the claim compares
          // run_at with) or the safety poll, but not less than MIN_TIMER_GAP_MS (bench:dispatch precision).
          const due = Math.max(nextDueInMs ?? this.opts.safetyPollMs, MIN_TIMER_GAP_MS);
          this.setTimer(Math.min(due, this.opts.safetyPollMs));
          return;
        }
      }
    } catch (error) {
      this.opts.log.error({ err: error }, "claiming jobs failed; retrying in 1 s");
      this.setTimer(CLAIM_RETRY_MS);
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
}
