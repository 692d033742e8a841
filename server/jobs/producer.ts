// Claims due jobs into a local queue and hands them to free slots (River's producer). It decides when to
// claim: now (a slot is free, or the prefetched queue runs low), at the next job's run_at (a timer, so a job
// due at 09:00:00.000 starts then, not at the next poll), or at the safety poll, which covers a lost NOTIFY.
// After a claim that found the lane dry, a freed slot is no reason to look again: only a NOTIFY, the timer
// (armed for the next run_at the claim reported, and by the runner for each job it snoozes or retries) or the
// safety poll is. Looking on every freed slot made the receipts lane a stream of empty claims, each a
// statement, most of the claims a run made once receipts were handed over (bench/NOTES.md).
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
 * sent) was claimed a few at a time, three times the claims and a much slower run (bench/NOTES.md). A job due meanwhile waits at most this long.
 */
const DRY_CLAIM_GAP_MS = 10;
const CLAIM_RETRY_MS = 1000;

/**
 * The producer's modes (derived from its fields, not stored apart):
 * - looking: every freed slot starts queued jobs and, while the local queue has room, claims more;
 * - dry (`dry`): the last claim found fewer due jobs than it asked for; a freed slot only starts queued jobs,
 *   and only a NOTIFY, the timer or the safety poll (wake) makes it look again;
 * - pausing (`dryUntil` ahead): after a dry claim, no claim for DRY_CLAIM_GAP_MS, however many slots free;
 * - claiming (`fetching`): one claim in flight; another request to look is remembered (`fetchAgain`);
 * - stopping: no more claims; queued jobs are released by the runner.
 */
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
  /** Places in the queue promised to jobs being inserted already claimed for this lane (adopt). */
  private reserved = 0;
  /** The last claim found fewer due jobs than it asked for, and nothing has said to look again since. */
  private dry = false;

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

  /** Something says there may be due jobs (a NOTIFY, the timer, a start): look, as long as there is room. */
  wake(): void {
    this.dry = false;
    this.pump();
  }

  /** Slots were freed: start queued jobs, and claim more unless the last claim found the lane dry. */
  slotsFreed(): void {
    if (this.dry) this.startQueued();
    else this.pump();
  }

  /** Starts queued jobs on free slots and claims more while there is room; one claim in flight at a time. */
  private pump(): void {
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
        this.pump();
      }
    });
  }

  /**
   * Up to `n` places in the local queue for jobs a statement is inserting already claimed for this lane: as
   * many as the queue has room for (prefetch, less what is queued, running or promised). A lane whose queue is
   * full gets none, and those jobs are inserted claimable by any worker.
   */
  reserve(n: number): number {
    if (this.stopping) return 0;
    const room = this.opts.prefetch - this.queued.length - this.opts.running() - this.reserved;
    const granted = Math.max(0, Math.min(n, room));
    this.reserved += granted;
    return granted;
  }

  /** Queues jobs inserted already claimed for `reserve`d places, and gives back the places left over. */
  adopt(jobs: ClaimedJob[], reserved: number): void {
    this.reserved -= reserved;
    // Stopping: the runner releases every job this worker holds once its running jobs end.
    if (this.stopping || jobs.length === 0) return;
    this.queued.push(...jobs);
    this.slotsFreed();
  }

  /** Gives back places whose jobs were not inserted. */
  release(reserved: number): void {
    this.reserved -= reserved;
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
    // Places promised to jobs on their way (reserve) count as queued: they will fill the room.
    const queued = this.queued.length + this.reserved;
    const room = concurrency - this.opts.running();
    if (room > queued) return true;
    return prefetch > concurrency && queued < Math.max(concurrency, prefetch / 4);
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
          this.dry = true;
          this.dryUntil = Date.now() + DRY_CLAIM_GAP_MS;
          // Dry for now: sleep until the next job is due (on the database's clock, the one the claim compares
          // run_at with) or the safety poll, but not less than MIN_TIMER_GAP_MS.
          // A timer already armed for sooner stays: the runner arms it for jobs it has just snoozed or retried,
          // which a claim running meanwhile may not have seen yet.
          const due = Math.min(Math.max(nextDueInMs ?? this.opts.safetyPollMs, MIN_TIMER_GAP_MS), this.opts.safetyPollMs);
          if (this.timerAt === undefined || Date.now() + due < this.timerAt) this.setTimer(due);
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
