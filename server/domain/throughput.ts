// Throughput caps as GCRA buckets (docs/ARCHITECTURE.md, "Throughput caps"): the decision alone, on numbers,
// for messages taken in release order. The buckets' state lives in PostgreSQL (db/throughputBuckets.ts); the
// send path and the pacer lock it, call admitInOrder, and write back what it changed.
//
// A bucket of `rate` segments a second keeps `tat`, the time at which everything admitted so far is paid off.
// A message of n segments may start at max(tat, now) — its slot — and moves tat to slot + n / rate. It is
// admitted when its slot is no later than `horizon`: the send path passes horizon = now (a message goes at once
// or waits), the pacer now + its lookahead (it releases messages for slots in the next few tens of ms). So a
// bucket never admits more than `rate` segments in a second plus the message that starts last: no burst
// beyond one message.

/** The key of an account's bucket. */
export const accountBucketKey = (accountId: string) => `account:${accountId}`;
/** The key of a connector's bucket (its maxSegmentsPerSecond, across every worker). */
export const connectorBucketKey = (connectorId: string) => `connector:${connectorId}`;
/** The key of a sender's bucket (its pool's maxMessagesPerSecondPerSender: a message is one unit). */
export const senderBucketKey = (accountId: string, sender: string) => `sender:${accountId}:${sender}`;
/**
 * The key of the row beside a bucket holding the time up to which its turns are promised (handTurns): every cap
 * known only once a message is claimed (a connector's, a sender's) has one.
 */
export const turnsKey = (bucketKey: string) => `${bucketKey}:turns`;
/** The key of the whole link's bucket (PROVIDER_MAX_SEGMENTS_PER_SECOND). */
export const LINK_BUCKET_KEY = "link";

/** A cap a message is charged to: its bucket's key and its rate (segments a second). */
export interface Cap {
  key: string;
  rate: number;
}

/**
 * Whose queue a cap known before the claim keeps, which a message may not pass: its account's own (the
 * account's messages in priority order), or the link's (shared by every account, by weight).
 */
export type QueueScope = "account" | "link";

/** A cap known before the claim: its bucket and rate, the queue it keeps, and itself in words. */
export interface QueuedCap extends Cap {
  scope: QueueScope;
  words: string;
}

/**
 * The caps a message is charged to before its claim: its account's maxSegmentsPerSecond and the link's
 * PROVIDER_MAX_SEGMENTS_PER_SECOND. The one list of them, read by the send path's stage and by the pacer
 * alike, each carrying the queue it keeps (the stage asks what waits ahead in each cap's queue and names the
 * caps in a held message's reason from this list alone): a new cap known before the claim (a country's, say) is
 * one more entry here, with its queue-ahead test beside the account's and the link's (db/throttledSends.ts,
 * findWaitingAhead) when it keeps a queue of its own. Caps known only later (a connector's, a sender's) are given
 * turns instead (db/capTurns.ts; docs/ARCHITECTURE.md, "Every cap, and where a new one goes").
 */
export function capsBeforeClaim(m: { accountId: string; maxSegmentsPerSecond: number | null }, linkRate: number | null): QueuedCap[] {
  const account = m.maxSegmentsPerSecond;
  return [
    ...(account !== null
      ? [{ key: accountBucketKey(m.accountId), rate: account, scope: "account" as const, words: `the account's ${account} segments/s` }]
      : []),
    ...(linkRate !== null
      ? [{ key: LINK_BUCKET_KEY, rate: linkRate, scope: "link" as const, words: `the link's ${linkRate} segments/s` }]
      : []),
  ];
}

/**
 * The caps a message is charged to once routed to a connector, paid with turns after the claim (db/capTurns.ts):
 * the connector's maxSegmentsPerSecond. The one list of them: sending with a fixed connector asks it whether
 * anything caps after the claim (providers/connectorSet.ts, fixed), and failover pays them (providers/failover.ts).
 */
export function capsAfterRouting(connector: { connectorId: string; maxSegmentsPerSecond: number | null }): Cap[] {
  const rate = connector.maxSegmentsPerSecond;
  return rate === null ? [] : [{ key: connectorBucketKey(connector.connectorId), rate }];
}

export interface Bucket {
  /** Segments a second. */
  rate: number;
  /** Theoretical arrival time, seconds since the epoch (the database's clock). */
  tat: number;
}

export interface Candidate {
  id: string;
  segments: number;
  /** The buckets it is charged to (its account's, the link's); none: admitted at once. */
  keys: string[];
  /** Keys whose queue holds a message ahead of this one: it may not take their tokens before that one. */
  behind?: string[];
  /** Not decidable yet (its job is still running): nothing after it on its keys goes before it. */
  unsettled?: boolean;
  /** End of its validity (seconds since the epoch): a slot at or after it would be wasted, so it gets none. */
  validUntil?: number | null;
}

export interface Decision {
  /** Admitted messages and their slots (seconds since the epoch), in release order. */
  slots: Map<string, number>;
  /** Keys whose tat moved: the buckets to write back. */
  changed: Set<string>;
}

/**
 * Admits `candidates` (in release order: priority, then scheduledAt, then id) into `buckets` (changed in place)
 * while their slots fit before `horizon`. Order holds per key: once a message is refused on a key, no later
 * message takes that key's tokens in this call; a message refused for another reason (a key of its own that is
 * full, a validity ending before its slot) does not stop messages that do not share that key.
 */
export function admitInOrder(candidates: Candidate[], buckets: Map<string, Bucket>, now: number, horizon: number): Decision {
  const slots = new Map<string, number>();
  const changed = new Set<string>();
  const closed = new Set<string>();
  for (const c of candidates) {
    if (c.keys.some((k) => closed.has(k))) continue;
    if (c.unsettled) {
      for (const k of c.keys) closed.add(k);
      continue;
    }
    if (c.behind && c.behind.length > 0) {
      for (const k of c.behind) closed.add(k);
      continue;
    }
    let slot = now;
    const late: string[] = [];
    for (const k of c.keys) {
      const start = Math.max(bucketOf(buckets, k).tat, now);
      if (start > horizon) late.push(k);
      slot = Math.max(slot, start);
    }
    if (late.length > 0) {
      for (const k of late) closed.add(k);
      continue;
    }
    if (c.validUntil !== undefined && c.validUntil !== null && c.validUntil <= slot) continue;
    for (const k of c.keys) {
      const bucket = bucketOf(buckets, k);
      bucket.tat = slot + c.segments / bucket.rate;
      changed.add(k);
    }
    slots.set(c.id, slot);
  }
  return { slots, changed };
}

function bucketOf(buckets: Map<string, Bucket>, key: string): Bucket {
  const bucket = buckets.get(key);
  if (!bucket) throw new Error(`no throughput bucket ${key}`);
  return bucket;
}

/** Segments that still fit in a bucket before `horizon`, as a bound on the messages worth reading for it. */
export function messagesThatMayFit(bucket: Bucket, now: number, horizon: number): number {
  const start = Math.max(bucket.tat, now);
  if (start > horizon) return 0;
  // Every message has at least one segment, and the last one may start right at the horizon.
  return Math.floor((horizon - start) * bucket.rate) + 1;
}

/**
 * Turns for messages refused by a bucket: each gets the next wake-up time, one after another at the bucket's
 * rate, from where turns are promised up to (`promised`, the turns row's time; never before the bucket's tat or
 * now). A turn is a wake-up time, not a payment: the message comes back `lookahead` seconds early and pays then
 * (admitInOrder), so a late wake-up loses no slot, and a message cancelled meanwhile leaves its turn to whoever
 * is due. Handing out turns one after another, instead of waking every refused message at the bucket's tat,
 * keeps windows refused together from coming back together to be refused again (20–31 job updates a message
 * in bench:throttle before turns). Returns each message's wake-up time and the new promised time.
 */
export function handTurns(
  bucket: Bucket,
  promised: number | undefined,
  waiting: { id: string; segments: number }[],
  now: number,
  lookahead: number,
): { wakeAt: Map<string, number>; promised: number } {
  let turn = Math.max(promised ?? now, bucket.tat, now);
  const wakeAt = new Map<string, number>();
  for (const m of waiting) {
    wakeAt.set(m.id, turn - lookahead);
    turn += m.segments / bucket.rate;
  }
  return { wakeAt, promised: turn };
}

/** The buckets a decision changed, with their new theoretical arrival times, to write back. */
export function changedTats(buckets: Map<string, Bucket>, decision: Decision): Map<string, number> {
  return new Map([...decision.changed].map((k) => [k, buckets.get(k)!.tat]));
}
