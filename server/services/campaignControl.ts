// Campaign control after creation (docs/API.md, "Campaigns"): pause, resume (which also starts a draft) and
// duplicate. A pause holds the campaign's lock while it parks its messages' waiting send jobs, so fan-out (which
// reads the campaign under the same lock, batch by batch) stops before its next batch, and the send claim
// refuses any message of it a worker already holds (db/sendingGuards.ts): nothing of it goes out after the pause
// commits but what was already with the provider.
import type { Knex } from "knex";
import type { Account } from "../operator/index.js";
import {
  campaignToCopy,
  completeCampaignIfDone,
  lockCampaign,
  markCampaignPaused,
  markCampaignResumed,
  type CampaignStatus,
} from "../db/campaigns.js";
import { listAudiencePhones } from "../db/campaignAudience.js";
import { insertJobs, makeCampaignSendsDue, parkCampaignSends } from "../db/jobs/index.js";
import { deleteThrottledSendsOfCampaign } from "../db/throttledSends.js";
import { retriedTransaction } from "../db/retriedTransaction.js";
import { DomainError, notFound, testKeyNotAllowed } from "../domain/errors.js";
import { createCampaign, type CreateCampaignRequest } from "./campaigns.js";
import type { DeploymentDestinations } from "../domain/sendingGuards.js";

const finished = (status: CampaignStatus, verb: string) =>
  new DomainError("campaign_finished", `The campaign is ${status}: it can no longer be ${verb}.`);

/** The campaign, locked, after the checks every control shares (it exists; a test key controls test campaigns only). */
async function lockedForControl(tx: Knex.Transaction, accountId: string, campaignId: string, testKey: boolean) {
  const campaign = await lockCampaign(tx, accountId, campaignId);
  if (!campaign) throw notFound("Campaign");
  if (testKey && !campaign.test) throw testKeyNotAllowed("campaign");
  return campaign;
}

/** scheduled | sending → paused; repeatable. 409 campaign_finished once over, campaign_draft for a draft. */
export async function pauseCampaign(db: Knex, accountId: string, campaignId: string, opts: { testKey: boolean }): Promise<void> {
  await retriedTransaction(db, async (tx) => {
    const campaign = await lockedForControl(tx, accountId, campaignId, opts.testKey);
    if (campaign.status === "paused") return;
    if (campaign.status === "completed" || campaign.status === "cancelled") throw finished(campaign.status, "paused");
    if (campaign.status === "draft")
      throw new DomainError("campaign_draft", "The campaign is a draft: nothing of it is being sent; resume starts it.");
    await markCampaignPaused(tx, accountId, campaignId);
    await parkCampaignSends(tx, accountId, campaignId);
    // Its messages waiting for throughput leave the queue (after their jobs: the pacer's lock order); they
    // join it again, in their order, once resumed and claimed.
    await deleteThrottledSendsOfCampaign(tx, accountId, campaignId);
  });
}

/**
 * paused | draft → scheduled or sending: its messages' jobs due again (at their time, or now), fan-out queued
 * again when recipients are left to make. Repeatable; 409 campaign_finished once over.
 */
export async function resumeCampaign(db: Knex, accountId: string, campaignId: string, opts: { testKey: boolean }): Promise<void> {
  await retriedTransaction(db, async (tx) => {
    const campaign = await lockedForControl(tx, accountId, campaignId, opts.testKey);
    if (campaign.status === "completed" || campaign.status === "cancelled") throw finished(campaign.status, "resumed");
    if (campaign.status !== "paused" && campaign.status !== "draft") return;
    const { fanoutLeft } = await markCampaignResumed(tx, accountId, campaignId);
    await makeCampaignSendsDue(tx, accountId, campaignId);
    // A job that ran at the pause may have queued its message for throughput since, paid a slot and found it
    // paused: that row would hold the message until the queue's sweep. They join the queue afresh, in order.
    await deleteThrottledSendsOfCampaign(tx, accountId, campaignId);
    if (fanoutLeft) await insertJobs(tx, [{ kind: "campaign_fanout", payload: { campaignId }, runAt: new Date(), accountId }]);
  });
  // Every message may have ended while it was paused (those already with the provider).
  await completeCampaignIfDone(db, accountId, campaignId);
}

/**
 * A new draft with the campaign's text, settings and audience rule (its group as it is now, or its list), made
 * as createCampaign makes one (checked, priced, reserved). Returns its id.
 */
export async function duplicateCampaign(
  db: Knex,
  account: Account,
  campaignId: string,
  body: { name?: string; scheduledAt?: string },
  opts: { now: Date; defaultSenderId: string; test: boolean; destinations: DeploymentDestinations },
): Promise<string> {
  const original = await campaignToCopy(db, account.id, campaignId);
  if (!original) throw notFound("Campaign");
  if (opts.test && !original.test) throw testKeyNotAllowed("campaign");
  const copy: CreateCampaignRequest = {
    name: body.name ?? `${original.name.slice(0, 93)} (copy)`,
    message: original.message,
    type: body.scheduledAt === undefined ? "instant" : "scheduled",
    scheduledAt: body.scheduledAt,
    ...(original.groupId !== null ? { groupId: original.groupId } : { recipients: await listAudiencePhones(db, account.id, campaignId) }),
    ...(original.senderPoolId !== null ? { senderPoolId: original.senderPoolId } : { from: original.from }),
    validityPeriod: original.validityPeriod ?? undefined,
    category: original.category,
    priority: original.priority,
    reference: original.reference ?? undefined,
    metadata: original.metadata ?? undefined,
    smartEncoding: original.smartEncoding,
    fallbacks: original.fallbacks ?? undefined,
  };
  return createCampaign(db, account, copy, { ...opts, draft: true });
}
