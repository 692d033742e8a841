// The throughput pacer (a maintenance chore, on the leader: releaseThrottledSendsChore in jobs/maintenance/chores.ts): every
// tick it takes the tokens for the next queued messages, in release order, whose slots fall within its
// lookahead, and makes each one's job due at its slot (throughputStage.ts says how messages join the queue).
import type { Knex } from "knex";
import type { Db } from "../../db/knex.js";
import { rescheduleJobs } from "../../db/jobs/index.js";
import {
  anyThrottledSends,
  deleteThrottledSends,
  listReleaseCandidates,
  listWaitingAccounts,
  markThrottledSendsReleased,
  sweepThrottledSends,
  type WaitingAccount,
} from "../../db/throttledSends.js";
import { lockThroughputBuckets, updateThroughputBuckets } from "../../db/throughputBuckets.js";
import { admitInOrder, capsBeforeClaim, changedTats, messagesThatMayFit, type Bucket } from "../../domain/throughput.js";

/** Messages released per tick for accounts that have no cap of their own (any more) while the link has none. */
const RELEASE_BATCH = 1000;
/** The queue's upkeep (expired and never-sent paid rows) runs at most this often. */
const SWEEP_EVERY_MS = 1000;
/** A paid row whose message was not sent this long after its payment is looked at again (the sweep). */
const PAID_FOR_SECONDS = 60;
/** How long after joining the queue a message's job may still be running because its snooze is being written. */
const SETTLING_SECONDS = 5;

/**
 * How far ahead slots are handed out, by the pacer and by the send path: two pacer periods, so a tick that comes
 * up to a period late leaves no gap in the cap's use.
 */
export const throughputLookaheadMs = (pacerMs: number) => 2 * pacerMs;

export interface PacerOptions {
  /** PROVIDER_MAX_SEGMENTS_PER_SECOND, or null. */
  linkMaxSegmentsPerSecond: number | null;
  /**
   * How far ahead a tick hands out slots: at least the period between ticks, so the cap is used in full when a
   * tick comes late, and what a high message due now may wait behind (the slots already handed out).
   */
  lookaheadMs: number;
}

/**
 * The pacer's tick: releases the queue's next messages in release order at the caps, each with a slot within
 * the lookahead, and deletes the stale rows it meets (message no longer scheduled, validity ended, job gone).
 * Returns the rows it handled. Runs on one worker at a time (the maintenance leader); the buckets' locks would
 * keep two pacers correct, only slower.
 */
export function throughputPacer(db: Db, opts: PacerOptions): () => Promise<number> {
  let sweptAt = 0;
  // When each waiting account last had a message released (a counter): between accounts level on their share,
  // the one served longest ago goes first, so a tick with room for one message alternates between them.
  const served = { tick: 0, at: new Map<string, number>() };
  return async () => {
    if (!(await anyThrottledSends(db))) return 0;
    let handled = 0;
    if (Date.now() - sweptAt >= SWEEP_EVERY_MS) {
      sweptAt = Date.now();
      handled += await sweepThrottledSends(db, PAID_FOR_SECONDS);
    }
    const accounts = await listWaitingAccounts(db);
    for (const id of served.at.keys()) if (!accounts.some((a) => a.accountId === id)) served.at.delete(id);
    return handled + (await db.transaction((tx) => releaseDue(tx, accounts, opts, served)));
  };
}

/**
 * One tick's releases, in a transaction with the buckets locked: the next queued messages whose slots fall
 * within the lookahead get them (their jobs due then), and the stale rows met on the way are deleted.
 */
async function releaseDue(
  tx: Knex.Transaction,
  accounts: WaitingAccount[],
  opts: PacerOptions,
  served: { tick: number; at: Map<string, number> },
): Promise<number> {
  const link = opts.linkMaxSegmentsPerSecond;
  const capsOf = new Map(accounts.map((a) => [a.accountId, capsBeforeClaim(a, link)]));
  const keysOf = (accountId: string) => capsOf.get(accountId)!.map((c) => c.key);
  const rates = new Map([...capsOf.values()].flat().map((c) => [c.key, c.rate] as const));
  const { now, tats } = await lockThroughputBuckets(tx, [...rates.keys()]);
  const horizon = now + opts.lookaheadMs / 1000;
  const buckets = new Map<string, Bucket>([...rates].map(([key, rate]) => [key, { rate, tat: tats.get(key) ?? now }]));
  // At most what could fit before the horizon, per account (and for the link, in all): each message has a
  // segment at least. An account with no cap under no link cap: a batch per tick, all at once.
  const fits = (accountId: string) =>
    Math.min(RELEASE_BATCH, ...keysOf(accountId).map((k) => messagesThatMayFit(buckets.get(k)!, now, horizon)));
  const limits = accounts.map((a) => ({ accountId: a.accountId, limit: fits(a.accountId) })).filter((a) => a.limit > 0);
  const candidates = await listReleaseCandidates(tx, limits);

  const stale = candidates.filter(
    (c) =>
      c.status !== "scheduled" ||
      c.jobState === null ||
      !["available", "retryable", "running"].includes(c.jobState) ||
      (c.validUntil !== null && c.validUntil <= now),
  );
  const staleIds = new Set(stale.map((c) => c.messageId));
  // A job running long after its message joined the queue is looking at it again (its safety wake, or a
  // worker that died holding it): it re-queues or sends the message itself; the queue does not wait for it.
  const live = candidates.filter((c) => !staleIds.has(c.messageId) && !(c.jobState === "running" && c.waitedSeconds > SETTLING_SECONDS));
  // Release order: each account's queue in its own order, the accounts interleaved by weight (the k-th of an
  // account of weight w at k ÷ w), ties to the account served longest ago.
  const weightOf = new Map(accounts.map((a) => [a.accountId, a.weight]));
  const seen = new Map<string, number>();
  const share = new Map(
    live.map((c) => {
      const k = (seen.get(c.accountId) ?? 0) + 1;
      seen.set(c.accountId, k);
      return [c.messageId, k / (weightOf.get(c.accountId) ?? 1)];
    }),
  );
  const lastServed = (accountId: string) => served.at.get(accountId) ?? -1;
  live.sort((x, y) => share.get(x.messageId)! - share.get(y.messageId)! || lastServed(x.accountId) - lastServed(y.accountId));
  const decision = admitInOrder(
    live.map((c) => ({
      id: c.messageId,
      segments: c.segments,
      keys: keysOf(c.accountId),
      // Its job is still running: the worker that just queued it has not written its snooze yet. Its turn
      // waits for the next tick, and so does everything after it on its buckets.
      unsettled: c.jobState === "running",
      validUntil: c.validUntil,
    })),
    buckets,
    now,
    horizon,
  );
  const releases = live.filter((c) => decision.slots.has(c.messageId)).map((c) => ({ ...c, sendAt: decision.slots.get(c.messageId)! }));
  for (const r of releases) served.at.set(r.accountId, ++served.tick);
  // The jobs first, then the queue rows: the order a cancel takes them in (messages, jobs, throttled_sends).
  await rescheduleJobs(
    tx,
    releases.map((r) => ({ id: r.jobId!, runAt: r.sendAt })),
  );
  await markThrottledSendsReleased(tx, releases);
  await deleteThrottledSends(
    tx,
    stale.map((c) => ({ id: c.messageId, accountId: c.accountId })),
  );
  await updateThroughputBuckets(tx, changedTats(buckets, decision));
  return releases.length + stale.length;
}
