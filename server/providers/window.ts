// The send window: how many messages one worker may have on the wire to its provider at once. A message is on
// the wire from the statement that claims it (its on-the-wire mark) until its answer is recorded, so after a
// crash or a dropped link at most `size` messages per worker are of unknown outcome. Handlers take the free
// slots (up to a window) before claiming those messages: one claim statement per window, not per message.
export class SendWindow {
  private free: number;
  private readonly waiting: { n: number; resolve: (count: number) => void }[] = [];

  constructor(public size: number) {
    this.free = size;
  }

  /** A new size (connectors added or removed): the slots taken stay taken; waiters take what frees. */
  resize(size: number): void {
    this.free += size - this.size;
    this.size = size;
    this.drain();
  }

  private drain(): void {
    while (this.waiting.length > 0 && this.free > 0) {
      const next = this.waiting.shift()!;
      const taken = Math.min(next.n, this.free);
      this.free -= taken;
      next.resolve(taken);
    }
  }

  /**
   * Waits (first come, first served) until a slot is free, then takes as many as are free, up to `n`: a window
   * half taken by another batch is filled rather than left idle. Resolves with how many and their release.
   */
  async acquire(n: number): Promise<{ count: number; release: () => void }> {
    const wanted = Math.min(n, this.size);
    let count: number;
    if (this.waiting.length > 0 || this.free === 0)
      count = await new Promise<number>((resolve) => this.waiting.push({ n: wanted, resolve }));
    else {
      count = Math.min(wanted, this.free);
      this.free -= count;
    }
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.free += count;
      this.drain();
    };
    return { count, release };
  }
}
