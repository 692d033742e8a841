// Turns a campaign's audience snapshot into ordinary messages, in batches: each batch is one transaction that
// inserts its messages and their send jobs set-wise and records how far fan-out got, so a
// retried or rescued fan-out continues where it stopped and never creates a recipient's message twice.
import { uuidv7 } from "../../domain/uuidv7.js";
import { completeCampaignIfDone } from "../../db/campaigns.js";
import { nextFanoutBatch, recordFanoutProgress } from "../../db/campaignAudience.js";
import type { Db } from "../../db/knex.js";
import { insertMessagesWithJobs, type NewMessage } from "../../db/messages/index.js";
import { fill } from "../../../common/personalise.js";
import { segmentInfo } from "../../../common/segments.js";
import { textToSend } from "../../../common/smartEncoding.js";
import { validUntil } from "../../domain/validity.js";
import type { JobHandler } from "../types.js";
import { chargeFromReservation, releaseReservation } from "../../billing/index.js";
import { getAccount } from "../../operator/index.js";
import { DomainError } from "../../domain/errors.js";
import { destinationsOf, type DeploymentDestinations } from "../../domain/sendingGuards.js";
import { screen, priceBookFor, priceOf, type PriceBook } from "../../services/acceptance/index.js";

/** Without the deployment's rules (a test's handler): international networks allowed, no prefix blocked. */
const NO_DEPLOYMENT_RULES: DeploymentDestinations = { internationalNetworks: true, blockedPrefixes: [] };

/**
 * A campaign message's price, or none when the list no longer prices its destination (the list changed since
 * the campaign was accepted: it is sent, and its reservation paid for it).
 */
function priceOfOrNone(book: PriceBook, to: string, segments: number) {
  try {
    return priceOf(book, to, segments, "");
  } catch (error) {
    if (error instanceof DomainError) return null;
    throw error;
  }
}

export const FANOUT_BATCH = 5000;

export function campaignFanoutHandler(
  db: Db,
  opts: { batchSize?: number; /** ALLOW_INTERNATIONAL_NETWORKS, BLOCKED_PREFIXES */ destinations?: DeploymentDestinations } = {},
): JobHandler<"campaign_fanout"> {
  const batchSize = opts.batchSize ?? FANOUT_BATCH;
  return async (job, { log, signal }) => {
    const { campaignId } = job.payload;
    // Null only for a job of the previous release whose campaign no longer exists (the claim fills the rest).
    const accountId = job.accountId;
    if (accountId === null) return log.warn({ campaignId }, "campaign fan-out for a campaign that no longer exists");
    let created = 0;
    let skipped = 0;
    let paused = false;
    for (;;) {
      signal.throwIfAborted();
      const more = await db.transaction(async (tx) => {
        const batch = await nextFanoutBatch(tx, accountId, campaignId, batchSize);
        if (!batch || batch.campaign.status === "cancelled" || batch.recipients.length === 0) return false;
        // Paused (or a draft): fan-out stops here, the reservation kept for the rest; resume queues it again.
        if (batch.campaign.status === "paused" || batch.campaign.status === "draft") return !(paused = true);
        const { campaign } = batch;
        const runAt = campaign.scheduledAt ?? new Date();
        // Validity counts from the campaign's time: its scheduledAt, or its start for an instant one.
        const expiresAt = validUntil(campaign.scheduledAt ?? campaign.startedAt, campaign.validityPeriod ?? undefined);
        // The intake rules that can change after creation (services/acceptance/): a prefix blocked since then (the
        // operator's, for the account or the deployment) is skipped, counted as `blocked`; an opted-out recipient
        // gets no message, counted in stats.optedOut.
        const account = await getAccount(tx, accountId);
        const intake = { db: tx, accountId, destinations: destinationsOf(account?.limits, opts.destinations ?? NO_DEPLOYMENT_RULES) };
        const { refused } = await screen(
          intake,
          batch.recipients.map((r) => ({ to: r.phone, path: "" })),
          ["blocked_prefix", "opt_out"],
        );
        const skippedBy: Record<string, number> = {};
        let optedOut = 0;
        for (const { refusal } of refused.values()) {
          if (refusal.code === "recipient_opted_out") optedOut += 1;
          else {
            const reason = refusal.code === "destination_blocked" ? "blocked" : "destination_not_allowed";
            skippedBy[reason] = (skippedBy[reason] ?? 0) + 1;
          }
        }
        // Creation left out whoever a placeholder would fail (the snapshot keeps what was checked); one that fails
        // all the same gets no message, counted as skipped for a missing value: a message is never empty.
        const filled = batch.recipients
          .filter((_, i) => !refused.has(i))
          .map((r) => ({ r, body: fill(campaign.message, r, campaign.fallbacks ?? {}) }));
        const missingValues = filled.filter((f) => f.body === undefined).length;
        const messages: NewMessage[] = filled
          .flatMap(({ r, body }) => (body === undefined ? [] : [{ r, body }]))
          .map(({ r, body }) => {
            const sent = textToSend(body, campaign.smartEncoding);
            return {
              id: uuidv7(),
              jobId: uuidv7(),
              campaignId,
              to: r.phone,
              from: campaign.from,
              senderPoolId: campaign.senderPoolId,
              body,
              scheduledAt: runAt,
              validUntil: expiresAt,
              category: campaign.category,
              priority: campaign.priority,
              test: campaign.test,
              reference: campaign.reference,
              metadata: campaign.metadata,
              sentBody: sent === body ? null : sent,
              ...segmentInfo(sent),
            };
          });
        // Priced by the account's list now; charged against the campaign's reservation (docs/BILLING.md).
        const book = campaign.test ? undefined : await priceBookFor(tx, account?.limits);
        if (book) for (const m of messages) m.price = priceOfOrNone(book, m.to, m.segments);
        await insertMessagesWithJobs(tx, campaign.accountId, messages);
        const charges = messages.filter((m) => m.price).map((m) => ({ messageId: m.id, amount: m.price!.amount }));
        await chargeFromReservation(tx, accountId, campaignId, charges);
        await recordFanoutProgress(tx, accountId, campaignId, batch.recipients.at(-1)!.seq, optedOut, {
          ...skippedBy,
          missing_value: missingValues,
        });
        skipped += refused.size + missingValues;
        created += messages.length;
        return batch.recipients.length === batchSize;
      });
      if (!more) break;
      log.info({ campaignId, created }, "campaign fan-out progress");
    }
    if (paused) return log.info({ campaignId, created }, "campaign fan-out stopped: the campaign is paused");
    // What the reservation still holds (recipients opted out since, prices lowered) goes back.
    await releaseReservation(db, accountId, campaignId);
    // With recipients skipped, the last message may have finished before fan-out did (or there is none).
    if (skipped > 0) await completeCampaignIfDone(db, accountId, campaignId);
    log.info({ campaignId, created, skipped }, "campaign fan-out done");
  };
}
