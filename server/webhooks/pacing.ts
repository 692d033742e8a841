// Fairness between webhooks, per worker: at most `maxInFlight` deliveries to one webhook at once (one for a
// webhook in a failure run), and a delivery over the cap does not wait in a slot: its job is snoozed to when
// the webhook should have room at its own pace. The pace is the webhook's recent attempt duration (a moving
// average; a receiver that never answers costs the whole timeout), divided by its cap; successive snoozes of
// one webhook queue up behind each other, at most MAX_SNOOZE_MS ahead, so a dead receiver's backlog is
// looked at a few times a minute instead of churning through the claim.

export interface PacingOptions {
  maxInFlight: number;
  /** Consecutive failed attempts after which a webhook gets one delivery at a time. */
  slowAfterFailures: number;
  random?: () => number;
}

/** The pace assumed for a webhook not yet timed by this worker. */
const FIRST_PACE_MS = 100;
const MAX_SNOOZE_MS = 30_000;
/** Weight of the newest duration in the moving average. */
const SMOOTHING = 0.3;

interface WebhookPace {
  inFlight: number;
  averageMs: number;
  /** Until when the snoozes given so far reach. */
  queuedUntil: number;
}

export class WebhookPacing {
  private readonly webhooks = new Map<string, WebhookPace>();

  constructor(private readonly opts: PacingOptions) {}

  private pace(webhookId: string): WebhookPace {
    let pace = this.webhooks.get(webhookId);
    if (!pace) this.webhooks.set(webhookId, (pace = { inFlight: 0, averageMs: FIRST_PACE_MS, queuedUntil: 0 }));
    return pace;
  }

  capOf(consecutiveFailures: number): number {
    return consecutiveFailures >= this.opts.slowAfterFailures ? 1 : this.opts.maxInFlight;
  }

  /** Takes one of the webhook's places, or says until when to snooze the delivery (ms since the epoch). */
  acquire(webhookId: string, consecutiveFailures: number): { snoozeUntil?: number } {
    const pace = this.pace(webhookId);
    const cap = this.capOf(consecutiveFailures);
    if (pace.inFlight < cap) {
      pace.inFlight++;
      return {};
    }
    const now = Date.now();
    const jitter = 0.9 + 0.2 * (this.opts.random ?? Math.random)();
    pace.queuedUntil = Math.min(Math.max(now, pace.queuedUntil) + (pace.averageMs * jitter) / cap, now + MAX_SNOOZE_MS);
    return { snoozeUntil: Math.ceil(pace.queuedUntil) };
  }

  /** Gives the place back, with how long the attempt took. */
  release(webhookId: string, durationMs: number): void {
    const pace = this.pace(webhookId);
    pace.inFlight = Math.max(0, pace.inFlight - 1);
    pace.averageMs = pace.averageMs * (1 - SMOOTHING) + durationMs * SMOOTHING;
    if (pace.inFlight === 0 && pace.queuedUntil < Date.now() && pace.averageMs < FIRST_PACE_MS * 1.01)
      this.webhooks.delete(webhookId); // nothing to remember about a quick, idle webhook
  }
}
