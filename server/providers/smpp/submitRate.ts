// The submit rate of one SMPP session, adapted to what the SMSC says (additive increase, multiplicative
// decrease): an ESME_RTHROTTLED / ESME_RMSGQFUL answer halves it, down to a floor of one submit a second, and a
// run of successful submits about a second long at the current rate (ceil(rate) of them) raises it by a tenth
// of the configured maximum, back up to SMPP_MAX_PER_SECOND. So from the floor the link is back to full speed
// after about ten such runs, and it halves at once when the SMSC objects again.
//
// One throttle burst is one decrease: every submit carries the epoch it was written in, and only a throttle of a
// submit written in the current epoch slows the link (and starts a new epoch). The submits already on the wire
// when the first answer came were sent at the old rate; their throttles say nothing new (TCP's one decrease
// per window). Successes of submits written before the last decrease do not count towards an increase either.
export class SubmitRate {
  /** Submits a second allowed now. */
  current: number;
  /** Bumped by every decrease. */
  epoch = 0;
  private successes = 0;

  constructor(
    readonly max: number,
    readonly min = Math.min(1, max),
  ) {
    this.current = max;
  }

  /** The spacing of submits at the current rate. */
  get intervalMs(): number {
    return 1000 / this.current;
  }

  /**
   * A throttle answer to a submit written in `epoch`. Returns true when it slowed the link down (the first of
   * its epoch), false for one that was sent before the last decrease.
   */
  throttled(epoch: number): boolean {
    if (epoch !== this.epoch) return false;
    this.current = Math.max(this.min, this.current / 2);
    this.epoch++;
    this.successes = 0;
    return true;
  }

  /** A submit written in `epoch` was accepted (or refused for a reason other than the rate). */
  succeeded(epoch: number): void {
    if (epoch !== this.epoch || this.current >= this.max) return;
    if (++this.successes < Math.ceil(this.current)) return;
    this.current = Math.min(this.max, this.current + Math.max(1, this.max / 10));
    this.successes = 0;
  }
}
