// The leader's small chores, one table: each a statement of db/ (or a service) on a schedule, with why it
// exists. Retention, the one chore with a policy of its own, is applyRetention.ts.
import { completeFinishedCampaigns } from "../../db/campaigns.js";
import { deleteExpiredIdempotencyKeys } from "../../db/idempotencyKeys.js";
import { compactMessageCounts, compactSpendCounts } from "../../db/messageCounts.js";
import { deleteFinalizedJobs, rescueExpiredJobs, unpinJobs } from "../../db/jobs/index.js";
import type { Db } from "../../db/knex.js";
import { deleteExpiredUnmatchedReceipts, requeueReceiptsNowKnown } from "../../db/unmatchedReceipts.js";
import { handOverDeliveries } from "../../db/receiptHandoffs.js";
import { releaseOrphanedParkedDeliveries } from "../../db/webhookDeliveries.js";
import type { Logger } from "../../logger.js";
import { storeIncompleteInboundMessages, type InboundOptions } from "../../services/inboundParts.js";
import { throughputLookaheadMs, throughputPacer } from "../../services/sendingPolicy/index.js";
import { chore } from "./chore.js";

/** Jobs whose worker died (its lease expired) become claimable again; run at a third of the lease. */
export const rescueExpiredJobsChore = (db: Db, everyMs = 5_000) => chore("rescue expired jobs", everyMs, () => rescueExpiredJobs(db));

/**
 * Receipt deliveries handed to a worker that died (their own lease expired: ClaimedJob.rowless) get a job each;
 * with the jobs' rescue, at a third of the lease.
 */
export const rescueHandedDeliveriesChore = (db: Db, everyMs = 5_000) =>
  chore("rescue handed receipt deliveries", everyMs, () => handOverDeliveries(db, "expired"));

/**
 * Send jobs handed to a connector nobody holds bound any more are let go, to be routed again (docs/ROUTING.md,
 * "Sessions"); at the connectors' refresh, as fast as a worker would notice the connector gone itself.
 */
export const unpinJobsChore = (db: Db, liveMs: number, everyMs = 1_000) =>
  chore("unpin jobs of connectors bound nowhere", everyMs, () => unpinJobs(db, liveMs));

/**
 * The counted message events (and spend) appended by every status change are summed into the report counts
 * (docs/REPORTS.md); a report reads both, so this only keeps the appended rows few.
 */
export const compactMessageCountsChore = (db: Db, everyMs = 5_000) =>
  chore("compact message counts", everyMs, async () => {
    let total = 0;
    for (let n = -1; n !== 0; total += n) n = await compactMessageCounts(db);
    for (let n = -1; n !== 0; total += n) n = await compactSpendCounts(db);
    return total;
  });

/** Receipts left parked behind an earlier one that has finished (a crash between finish and release). */
export const releaseOrphanedReceiptsChore = (db: Db, everyMs = 5_000) =>
  chore("release orphaned receipts", everyMs, () => releaseOrphanedParkedDeliveries(db));

/** Deletes failed and cancelled jobs after `retentionMs`, in bounded statements until none is left. */
export const deleteFinalizedJobsChore = (db: Db, retentionMs: number, everyMs = 60_000) =>
  chore("delete finalized jobs", everyMs, async () => {
    let total = 0;
    for (let n = -1; n !== 0; total += n) n = await deleteFinalizedJobs(db, retentionMs);
    return total;
  });

/** Idempotency keys are answered for 24 h; then they go. */
export const deleteExpiredIdempotencyKeysChore = (db: Db, everyMs = 60_000) =>
  chore("delete expired idempotency keys", everyMs, () => deleteExpiredIdempotencyKeys(db));

/** Campaigns whose every message is final but that a crash left `sending` (the status path completes the rest). */
export const completeFinishedCampaignsChore = (db: Db, everyMs = 60_000) =>
  chore("complete finished campaigns", everyMs, () => completeFinishedCampaigns(db));

/**
 * Receipts that matched no message are kept to resolve unknown send outcomes; an unknown outcome waits at most
 * SEND_OUTCOME_RESOLVE_MS from when it was declared (a job lease or so after its submit), so a receipt kept
 * twice that long has outlived every message it could resolve.
 */
export const deleteExpiredUnmatchedReceiptsChore = (db: Db, resolveMs: number, everyMs = 60_000) =>
  chore("delete expired unmatched receipts", everyMs, () => deleteExpiredUnmatchedReceipts(db, 2 * resolveMs));

/**
 * A receipt is kept as unmatched after a few lookups of its id; if the submit's answer is recorded after that
 * (the worker stalled between the SMSC's answer and its write), the receipt must still reach its message, or
 * the message would wait in `sent` for a receipt that came. This finds such receipts and queues them again.
 * The table is empty but for rare races, so a frequent look is cheap (an index probe per kept receipt).
 */
export const requeueReceiptsNowKnownChore = (db: Db, everyMs = 2_000) =>
  chore("requeue receipts now known", everyMs, () => requeueReceiptsNowKnown(db));

/**
 * Long inbound messages whose parts are still missing INBOUND_REASSEMBLY_TIMEOUT_MS after the first arrived are
 * stored with what arrived (`incomplete: true`). Run often enough that one is stored within about a tenth of the
 * timeout after it expires (at most every 10 s).
 */
export const storeIncompleteInboundMessagesChore = (db: Db, log: Logger, opts: InboundOptions) =>
  chore("store incomplete inbound messages", Math.min(10_000, Math.max(100, Math.floor(opts.reassemblyTimeoutMs / 10))), () =>
    storeIncompleteInboundMessages(db, log, opts),
  );

/**
 * The throughput pacer (services/sendingPolicy/throughputPacer.ts): every `everyMs` (THROUGHPUT_PACER_MS) it releases the messages
 * waiting for an account's or the link's cap, in order of priority then scheduledAt, handing out slots up to two
 * periods ahead so that a tick that comes late leaves no gap in the cap's use.
 */
export const releaseThrottledSendsChore = (db: Db, opts: { linkMaxSegmentsPerSecond: number | null; everyMs: number }) =>
  chore(
    "release throttled sends",
    opts.everyMs,
    throughputPacer(db, { linkMaxSegmentsPerSecond: opts.linkMaxSegmentsPerSecond, lookaheadMs: throughputLookaheadMs(opts.everyMs) }),
    { frequent: true },
  );
