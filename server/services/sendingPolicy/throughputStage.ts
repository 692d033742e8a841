// Throughput caps (docs/API.md, "Sending policy"; docs/ARCHITECTURE.md, "Throughput caps"): an account's
// maxSegmentsPerSecond and the link's PROVIDER_MAX_SEGMENTS_PER_SECOND, shared by every worker process through
// PostgreSQL — GCRA buckets (db/throughputBuckets.ts) and a queue of the messages waiting their turn
// (db/throttledSends.ts). Two parts:
// - the send path's stage: a capped message goes at once when nothing of its account (for the link: of any
//   account) waits ahead of it and its buckets have room now; otherwise it joins the queue and its job is
//   snoozed far ahead. A message the pacer paid for goes without paying again.
// - the pacer (a maintenance chore, on the leader): every tick it takes the tokens for the next queued messages,
//   in release order, whose slots fall within its lookahead, and makes each one's job due at its slot.
// So a waiting message is handled three times (held, released, sent), however long the backlog; and a high
// message due now waits at most for the slots already handed out (the lookahead), never behind the backlog.
import type { Db } from "../../db/knex.js";
import type { PolicyFacts } from "../../db/sendingPolicy.js";
import {
  deleteThrottledSends,
  findWaitingAhead,
  holdThrottledSends,
  consumeReleasedSends,
  type ThrottledSend,
} from "../../db/throttledSends.js";
import { lockThroughputBuckets, updateThroughputBuckets } from "../../db/throughputBuckets.js";
import { admitInOrder, capsBeforeClaim, changedTats, type Candidate } from "../../domain/throughput.js";
import type { Hold, PolicyStage } from "./types.js";

/**
 * How far ahead a waiting message's job is snoozed (or to the end of its validity, if sooner). The queue, not the
 * job, decides when it goes; this bounds only how long a message whose queue row was lost waits before its job
 * looks again. A job that looks again while its turn has not come is snoozed again (one cheap run an hour).
 */
export const HOLD_SAFETY_MS = 3_600_000;

/**
 * A paid message sent more than this after its slot pays again (at its turn): the bound on how far late, bunched
 * sends can take a second over the cap when workers fall behind. Paid jobs are claimed first once due (timed
 * jobs, db/jobs/rescheduleJobs.ts), so they are late only by their claim and run, tens of ms.
 */
const PAYMENT_GRACE_SECONDS = 0.5;

/** The send path's throughput stage (after quiet hours: a message held by quiet hours takes no share of a cap). */
export const throughputStage: PolicyStage = async (db, messages, held, { opts, accountOf }) => {
  // Held by an earlier stage: it waits for that now, not for throughput (a payment it had is dropped).
  if (held.size > 0)
    await deleteThrottledSends(
      db,
      [...held.keys()].map((id) => ({ id, accountId: accountOf.get(id)! })),
    );
  const link = opts.linkMaxSegmentsPerSecond;
  const capsOf = (m: PolicyFacts) => capsBeforeClaim(m, link);
  const keysOf = (m: PolicyFacts) => capsOf(m).map((c) => c.key);
  const capped = messages.filter((m) => keysOf(m).length > 0);
  if (capped.length === 0) return messages;

  const paid = await consumeReleasedSends(
    db,
    capped.map((m) => ({ id: m.id, accountId: m.accountId })),
    PAYMENT_GRACE_SECONDS,
  );
  const unpaid = capped.filter((m) => !paid.has(m.id));
  if (unpaid.length === 0) return messages;

  // What waits ahead of each in the queue of each cap it is charged to: it may not take that cap's tokens first.
  const ahead = await findWaitingAhead(
    db,
    unpaid.map((m) => ({ id: m.id, accountId: m.accountId })),
    new Set(unpaid.flatMap((m) => capsOf(m).map((c) => c.scope))),
  );
  const candidates: Candidate[] = unpaid.map((m) => {
    const a = ahead.get(m.id);
    const behind = capsOf(m)
      .filter((c) => a?.[c.scope])
      .map((c) => c.key);
    return { id: m.id, segments: m.segments, keys: keysOf(m), behind, validUntil: m.validUntil ? m.validUntil.getTime() / 1000 : null };
  });
  const toQueue = (slots: Map<string, number>): ThrottledSend[] =>
    unpaid.map((m) => ({
      messageId: m.id,
      accountId: m.accountId,
      priority: m.priority,
      scheduledAt: m.scheduledAt,
      segments: m.segments,
      validUntil: m.validUntil,
      sendAt: slots.get(m.id),
    }));

  const { now, slots } = candidates.every((c) => c.behind!.length > 0)
    ? // Every one waits behind the queue (the usual case while a backlog is held): no tokens to take, no lock.
      await holdThrottledSends(db, toQueue(new Map())).then(() => ({ now: Date.now() / 1000, slots: new Map<string, number>() }))
    : await takeSlots(db, unpaid, candidates, { link, lookaheadMs: opts.throughputLookaheadMs ?? 0, ahead, toQueue });
  for (const m of unpaid) {
    const slot = slots.get(m.id);
    if (slot === now) continue;
    held.set(m.id, {
      until: new Date(1000 * (slot ?? Math.min(now + HOLD_SAFETY_MS / 1000, (m.validUntil?.getTime() ?? Infinity) / 1000))),
      reason:
        slot === undefined
          ? `waiting its turn for throughput (${capsOf(m)
              .map((c) => c.words)
              .join(", ")})`
          : "throughput: paid for a slot just ahead",
      wake: slot !== undefined,
    } satisfies Hold);
  }
  return messages.filter((m) => !held.has(m.id));
};

/**
 * Takes the buckets' tokens for the messages that may go, in one transaction with the buckets locked. A slot
 * now: sent in this window. A slot within the lookahead (as the pacer hands them out): paid, its job snoozed
 * until then. None: it joins the queue, its job snoozed far ahead, and the pacer releases it.
 */
async function takeSlots(
  db: Db,
  unpaid: PolicyFacts[],
  candidates: Candidate[],
  opts: {
    link: number | null;
    lookaheadMs: number;
    ahead: Map<string, { queued: boolean }>;
    toQueue: (slots: Map<string, number>) => ThrottledSend[];
  },
): Promise<{ now: number; slots: Map<string, number> }> {
  return db.transaction(async (tx) => {
    const rates = new Map(unpaid.flatMap((m) => capsBeforeClaim(m, opts.link).map((c) => [c.key, c.rate] as const)));
    const { now, tats } = await lockThroughputBuckets(tx, [...rates.keys()]);
    const buckets = new Map([...rates].map(([key, rate]) => [key, { rate, tat: tats.get(key) ?? now }]));
    const decision = admitInOrder(candidates, buckets, now, now + opts.lookaheadMs / 1000);
    await updateThroughputBuckets(tx, changedTats(buckets, decision));
    await holdThrottledSends(
      tx,
      opts.toQueue(decision.slots).filter((q) => q.sendAt !== now),
    );
    // Sent now while it had a row (its job looked again at the head of the queue): out of the queue.
    await deleteThrottledSends(
      tx,
      unpaid
        .filter((m) => decision.slots.get(m.id) === now && opts.ahead.get(m.id)?.queued)
        .map((m) => ({ id: m.id, accountId: m.accountId })),
    );
    return { now, slots: decision.slots };
  });
}
