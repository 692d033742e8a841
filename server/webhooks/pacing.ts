// Fairness between webhooks, per worker. A webhook gets at most `maxInFlight` deliveries at once once it has
// shown itself quick (PROVEN_AFTER answers, averaging under QUICK_MS, none in flight for longer), and
// START_IN_FLIGHT until then: a receiver that never answers is never timed, so however many of them an
// account registers, each holds at most START_IN_FLIGHT slots until its timeouts count as failures. (With the
// full cap from the start, 19 hanging webhooks took every slot of the lane for a whole timeout; with 5 for
// every webhook, one busy healthy webhook got its receipts much later.) One while it
// is in a failure run (`slowAfterFailures` consecutive failed attempts), and webhooks in a failure run share
// at most half of the receipts lane (`failingShare`), so healthy ones always have the other half. A delivery
// over a cap does not wait in a slot: its job is snoozed (no attempt counted) to when the webhook should
// have room at its own pace: its recent attempt duration (a moving average, or the age of a POST in flight
// that has lasted longer; a receiver that never answers costs the whole timeout), divided by its cap.
// Successive snoozes of one webhook queue up behind each other, at most MAX_SNOOZE_MS ahead, so a dead
// receiver's backlog comes back a few times a minute instead of churning through the claim.
//
// A webhook that answers quickly again after a slow spell (`recovered`) starts afresh at that pace, and the
// snoozes its slow spell queued up are recalled (db/jobs/recallSnoozedReceipts): without that, a receiver
// starved for a while had 1,625 receipts snoozed up to 30 s ahead, and its last receipt came at 31.9 s
// instead of about 12 s.
//
// Except for a quick webhook at its cap: its next place comes within milliseconds, so up to its cap of
// deliveries wait for one in memory (`waitForPlace`, keeping their slots, for at most QUICK_MS) instead of
// being snoozed and claimed again. With a snooze for each, a busy healthy webhook had most of its receipts
// claimed two or more times (bench/NOTES.md).

export interface PacingOptions {
  maxInFlight: number;
  /** Consecutive failed attempts after which a webhook gets one delivery at a time. */
  slowAfterFailures: number;
  /** POSTs in flight to webhooks in a failure run, all of them together. */
  failingShare: number;
  random?: () => number;
}

/** The pace assumed for a webhook not yet timed by this worker. */
const FIRST_PACE_MS = 100;
/** Places of a webhook not yet shown to be quick. */
const START_IN_FLIGHT = 5;
/** Answers it takes to show a webhook quick, and how quick. */
const PROVEN_AFTER = 5;
const QUICK_MS = 1000;
const MAX_SNOOZE_MS = 30_000;
/** An answer this many times quicker than the webhook's recent pace ends its slow spell (`recovered`). */
const RECOVERED_FACTOR = 4;
/** Weight of the newest duration in the moving average. */
const SMOOTHING = 0.3;

interface WebhookPace {
  /** When each POST in flight began. */
  inFlight: number[];
  failing: boolean;
  averageMs: number;
  /** Attempts timed so far. */
  answers: number;
  /** Until when the snoozes given so far reach. */
  queuedUntil: number;
  /** Deliveries waiting in memory for a place, first come first served. */
  waiters: ((placed: boolean) => void)[];
}

export class WebhookPacing {
  private readonly webhooks = new Map<string, WebhookPace>();
  private failingInFlight = 0;

  constructor(private readonly opts: PacingOptions) {}

  private pace(webhookId: string): WebhookPace {
    let pace = this.webhooks.get(webhookId);
    if (!pace)
      this.webhooks.set(
        webhookId,
        (pace = { inFlight: [], failing: false, averageMs: FIRST_PACE_MS, answers: 0, queuedUntil: 0, waiters: [] }),
      );
    return pace;
  }

  /**
   * Takes one of the webhook's places; or, for a quick webhook at its cap, says the delivery may wait for one
   * (`waitForPlace`); or says until when to snooze it (ms since the epoch). `mayWait: false` asks for a place
   * or a snooze only.
   */
  acquire(webhookId: string, consecutiveFailures: number, mayWait = false): { snoozeUntil?: number; wait?: true } {
    const pace = this.pace(webhookId);
    const failing = consecutiveFailures >= this.opts.slowAfterFailures;
    const now = Date.now();
    const quick = !failing && this.isQuick(pace, now);
    const cap = failing ? 1 : quick ? this.opts.maxInFlight : Math.min(START_IN_FLIGHT, this.opts.maxInFlight);
    const shareLeft = !failing || this.failingInFlight < this.opts.failingShare;
    if (pace.inFlight.length < cap && shareLeft) {
      pace.inFlight.push(now);
      if (failing) this.failingInFlight++;
      pace.failing = failing;
      return {};
    }
    if (mayWait && quick && pace.waiters.length < cap) return { wait: true };
    const paceMs = Math.max(pace.averageMs, now - Math.min(now, ...pace.inFlight));
    const jitter = 0.9 + 0.2 * (this.opts.random ?? Math.random)();
    pace.queuedUntil = Math.min(Math.max(now, pace.queuedUntil) + (paceMs * jitter) / cap, now + MAX_SNOOZE_MS);
    return { snoozeUntil: Math.ceil(pace.queuedUntil) };
  }

  /** Whether the webhook has answered quickly (the full cap), rather than not yet or no longer (START_IN_FLIGHT). */
  private isQuick(pace: WebhookPace, now: number): boolean {
    return pace.answers >= PROVEN_AFTER && pace.averageMs < QUICK_MS && now - Math.min(now, ...pace.inFlight) < QUICK_MS;
  }

  /**
   * Waits, after `acquire` said `wait`, until a place of the webhook is handed over (true: it is taken) or
   * QUICK_MS pass (false: snooze instead).
   */
  waitForPlace(webhookId: string): Promise<boolean> {
    const pace = this.pace(webhookId);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        pace.waiters.splice(pace.waiters.indexOf(waiter), 1);
        resolve(false);
      }, QUICK_MS);
      const waiter = (placed: boolean) => {
        clearTimeout(timer);
        resolve(placed);
      };
      pace.waiters.push(waiter);
    });
  }

  /**
   * After an answered attempt: true when the webhook answered quickly (under QUICK_MS, and in under a quarter of
   * its recent pace) while its snoozes reach further ahead than QUICK_MS, i.e. it has recovered from a slow spell and its snoozed deliveries should be recalled. The
   * webhook then starts afresh at this pace (its slow average would snooze the recalled deliveries far ahead
   * again) with its snoozes reset, so one slow spell gives one recall.
   */
  recovered(webhookId: string, durationMs: number): boolean {
    const pace = this.webhooks.get(webhookId);
    const now = Date.now();
    if (!pace || durationMs >= QUICK_MS || durationMs * RECOVERED_FACTOR >= pace.averageMs || pace.queuedUntil <= now + QUICK_MS)
      return false;
    pace.averageMs = Math.min(pace.averageMs, durationMs);
    pace.queuedUntil = now;
    return true;
  }

  /** Gives the place back, with how long the attempt took; a delivery waiting for one takes it at once. */
  release(webhookId: string, durationMs: number): void {
    const pace = this.pace(webhookId);
    pace.inFlight.shift(); // which one does not matter: only the oldest start is read
    if (pace.failing) this.failingInFlight = Math.max(0, this.failingInFlight - 1);
    pace.averageMs = pace.averageMs * (1 - SMOOTHING) + durationMs * SMOOTHING;
    pace.answers++;
    const next = pace.waiters.shift();
    if (next) {
      pace.inFlight.push(Date.now());
      next(true);
      return;
    }
    if (pace.inFlight.length === 0 && pace.queuedUntil < Date.now() && pace.averageMs < FIRST_PACE_MS * 1.01 && pace.answers < PROVEN_AFTER)
      this.webhooks.delete(webhookId); // nothing to remember about a quick, idle webhook
  }
}
