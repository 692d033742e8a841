// How a message waits for a cap known only once it is claimed (a connector's, a sender's): the one mechanism
// both use (docs/ARCHITECTURE.md, "Every cap, and where a new one goes"). The cap is a GCRA bucket of the
// throughput caps' table (db/throughputBuckets.ts), shared by every worker; beside it a turns row
// (`<key>:turns`) holds the time up to which turns are promised. A message the bucket admits within the
// lookahead is paid and goes; one refused that may wait gets the next turn (domain/throughput.ts, handTurns)
// and its job is snoozed to it; it pays when it comes back. Caps known before the claim (an account's, the
// link's) charge the same buckets with the same decision (admitInOrder), but a message over them waits in the
// queue of throttled_sends, because before the claim its priority and its account's fair share decide who is
// next (services/sendingPolicy/throughputStage.ts, throughputPacer.ts). It sits in db/, beside the buckets'
// table, so the engine (providers/failover.ts) and the routing module (routing/senderPools.ts) both reach it
// without a layer reaching up.
import type { Knex } from "knex";
import { lockThroughputBuckets, updateThroughputBuckets, type LockedBuckets } from "./throughputBuckets.js";
import { admitInOrder, changedTats, handTurns, turnsKey, type Bucket, type Cap } from "../domain/throughput.js";

/** Locks the buckets of `keys` and their turns rows, in key order (as every bucket's locker does). */
export const lockCapsWithTurns = (tx: Knex.Transaction, keys: string[]): Promise<LockedBuckets> =>
  lockThroughputBuckets(tx, [...keys, ...keys.map(turnsKey)]);

/**
 * Turns for the messages refused by the bucket `key` (locked by lockCapsWithTurns), in their order: when each
 * should look again (ms since the epoch, at least 10 ms from now), and the turns row's new time to write.
 */
export function waitForTurns(
  locked: LockedBuckets,
  key: string,
  bucket: Bucket,
  waiting: { id: string; segments: number }[],
  lookahead: number,
): { wakeAtMs: Map<string, number>; promised: [string, number] | undefined } {
  const { now, tats } = locked;
  const turns = handTurns(bucket, tats.get(turnsKey(key)), waiting, now, lookahead);
  const nowMs = Date.now();
  const wakeAtMs = new Map([...turns.wakeAt].map(([id, at]) => [id, nowMs + Math.max(10, (at - now) * 1000)]));
  return { wakeAtMs, promised: waiting.length > 0 ? [turnsKey(key), turns.promised] : undefined };
}

export interface TurnsTaken {
  /** Admitted: each message's slot (seconds since the epoch, the database's clock). */
  slots: Map<string, number>;
  /** Refused and waiting: when each should look again (ms since the epoch). */
  wakeAtMs: Map<string, number>;
  /** The database's clock when the bucket was locked (seconds since the epoch). */
  now: number;
}

/**
 * One cap's decision for messages in order (one transaction): those whose slots fall within `lookahead` seconds
 * are admitted and paid; of the others, those that `waits` get turns; the rest (free to go elsewhere) neither.
 */
export async function payOrTakeTurns(
  db: Knex,
  cap: Cap,
  messages: { id: string; segments: number; waits: boolean }[],
  lookahead: number,
): Promise<TurnsTaken> {
  return db.transaction(async (tx) => {
    const locked = await lockCapsWithTurns(tx, [cap.key]);
    const { now, tats } = locked;
    const buckets = new Map([[cap.key, { rate: cap.rate, tat: tats.get(cap.key) ?? now }]]);
    const decision = admitInOrder(
      messages.map((m) => ({ id: m.id, segments: m.segments, keys: [cap.key] })),
      buckets,
      now,
      now + lookahead,
    );
    const changed = changedTats(buckets, decision);
    const waiting = messages.filter((m) => m.waits && !decision.slots.has(m.id));
    const { wakeAtMs, promised } = waitForTurns(locked, cap.key, buckets.get(cap.key)!, waiting, lookahead);
    if (promised) changed.set(...promised);
    await updateThroughputBuckets(tx, changed);
    return { slots: decision.slots, wakeAtMs, now };
  });
}
