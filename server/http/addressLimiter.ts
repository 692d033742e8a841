/**
 * A per-process token bucket per client address (GCRA over a timestamp), for requests without a valid API
 * key. It lives in memory so that refusing a flood costs no database query; each API process counts on its
 * own, so N processes allow N times the rate. At most `maxAddresses` are remembered: the least recently seen
 * is forgotten first (a forgotten address starts with a full bucket), so memory stays bounded under a spray
 * of addresses.
 */
export class AddressLimiter {
  private readonly tat = new Map<string, number>();
  private readonly intervalMs: number;
  private readonly windowMs: number;

  constructor(
    perSecond: number,
    burst: number,
    private readonly maxAddresses = 10_000,
    private readonly now: () => number = Date.now,
  ) {
    this.intervalMs = 1000 / perSecond;
    this.windowMs = burst * this.intervalMs;
  }

  /** Seconds until the address may make a request again, or 0 when it may now. Takes nothing. */
  retryAfterSeconds(address: string): number {
    const tat = this.tat.get(address);
    if (tat === undefined) return 0;
    const wait = Math.max(tat, this.now()) + this.intervalMs - this.windowMs - this.now();
    return wait <= 0 ? 0 : Math.max(1, Math.ceil(wait / 1000));
  }

  /** Takes a token from the address's bucket (an unauthenticated request was answered). */
  take(address: string): void {
    const now = this.now();
    const tat = Math.max(this.tat.get(address) ?? now, now) + this.intervalMs;
    this.tat.delete(address);
    // Never further ahead than a full window: a flood cannot push its own refusal out for ever.
    this.tat.set(address, Math.min(tat, now + this.windowMs));
    if (this.tat.size > this.maxAddresses) this.tat.delete(this.tat.keys().next().value!);
  }
}

/**
 * The bucket an address counts against: an IPv4 address (also IPv4-mapped IPv6) as it is, an IPv6 address by
 * its /64 — one host usually holds a whole /64, so per-/128 buckets would let it rotate addresses freely.
 */
export function clientBucket(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(":")) return address;
  const [head, tail] = address.split("%")[0]!.split("::") as [string, string | undefined];
  const left = head ? head.split(":") : [];
  const right = tail === undefined ? [] : tail ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g || "0", 16).toString(16))
    .join(":")}::/64`;
}

/** A bounded set of recently seen strings (least recently seen dropped first). */
export class RecentSet {
  private readonly items = new Set<string>();
  constructor(private readonly max = 10_000) {}
  has(item: string): boolean {
    return this.items.has(item);
  }
  add(item: string): void {
    this.items.delete(item);
    this.items.add(item);
    if (this.items.size > this.max) this.items.delete(this.items.values().next().value!);
  }
  delete(item: string): void {
    this.items.delete(item);
  }
}
