// The send window: how many messages one worker may have on the wire to its provider at once. A message is on
// the wire from the statement that claims it (its on-the-wire mark) until its answer is recorded, so after a
// crash or a dropped link at most `size` messages per worker are of unknown outcome. Handlers take slots for a
// whole window of messages before claiming them (one claim statement per window, not per message).
export class SendWindow {
  private free: number;
  private readonly waiting: { n: number; resolve: () => void }[] = [];

  constructor(readonly size: number) {
    this.free = size;
  }

  /** Waits (first come, first served) for `n` ≤ size slots; resolves with their release. */
  async acquire(n: number): Promise<() => void> {
    if (n > this.size) throw new Error(`window of ${this.size} cannot hold ${n} messages`);
    if (this.waiting.length > 0 || this.free < n) await new Promise<void>((resolve) => this.waiting.push({ n, resolve }));
    else this.free -= n;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.free += n;
      while (this.waiting.length > 0 && this.waiting[0]!.n <= this.free) {
        const next = this.waiting.shift()!;
        this.free -= next.n;
        next.resolve();
      }
    };
  }
}
