// Creating and cancelling a campaign: the request's rules checked, the audience snapshotted and the fan-out
// job queued in one transaction, so a campaign never exists without its audience and its job.
import { uuidv7 } from "../domain/uuidv7.js";
import type { Knex } from "knex";
import type { components } from "../../generated/api.js";
import {
  audienceNameBounds,
  cancelCampaign as cancelCampaignRows,
  insertCampaign,
  lockCampaign,
  snapshotGroupAudience,
  snapshotListAudience,
} from "../db/campaigns.js";
import { groupExists } from "../db/groups.js";
import { insertJobs } from "../db/jobs/index.js";
import { deleteThrottledSendsOfCampaign } from "../db/throttledSends.js";
import { DomainError, groupNotFound, invalidField, notFound } from "../domain/errors.js";
import { personalisationProblem } from "../../common/personalise.js";
import { requirePhone, requireSender } from "../domain/phone.js";
import { checkScheduledAt } from "../domain/schedule.js";
import { mapYielding } from "./yieldingMap.js";

export type CreateCampaignRequest = components["schemas"]["CreateCampaignRequest"];

/** Checks the request and stores the campaign, its audience and its fan-out job; returns its id. */
export async function createCampaign(
  db: Knex,
  accountId: string,
  body: CreateCampaignRequest,
  opts: { now: Date; defaultSenderId: string },
): Promise<string> {
  if ((body.groupId === undefined) === (body.recipients === undefined)) {
    throw invalidField("/body", "must have exactly one audience: groupId or recipients");
  }
  let scheduledAt: Date | null = null;
  if (body.type === "scheduled") {
    if (body.scheduledAt === undefined) throw invalidField("/body/scheduledAt", "is required when type is scheduled");
    scheduledAt = new Date(body.scheduledAt);
    checkScheduledAt(scheduledAt, opts.now);
  } else if (body.scheduledAt !== undefined) {
    throw invalidField("/body/scheduledAt", "is only allowed when type is scheduled");
  }
  const from = body.from === undefined ? opts.defaultSenderId : requireSender(body.from, "/body/from");
  // Normalised and de-duplicated: one number listed twice gets one message.
  const recipients = body.recipients && [
    ...new Set(await mapYielding(body.recipients, (phone, i) => requirePhone(phone, `/body/recipients/${i}`))),
  ];

  return db.transaction(async (tx) => {
    const id = uuidv7();
    const groupId = body.groupId ?? null;
    if (groupId && !(await groupExists(tx, accountId, groupId))) throw groupNotFound();
    await insertCampaign(tx, accountId, {
      id,
      name: body.name,
      message: body.message,
      type: body.type,
      from,
      groupId,
      scheduledAt,
      validityPeriod: body.validityPeriod ?? null,
      category: body.category,
      priority: body.priority,
    });
    const size = groupId
      ? await snapshotGroupAudience(tx, accountId, id, groupId)
      : await snapshotListAudience(tx, accountId, id, recipients!);
    if (size === 0)
      throw new DomainError("empty_audience", "The group has no contacts.", {
        errors: [{ path: "/body/groupId", message: "group has no contacts" }],
      });
    const names = await audienceNameBounds(tx, accountId, id);
    const problem = personalisationProblem(body.message, names.longest, names.someEmpty);
    if (problem) throw invalidField("/body/message", `personalised with {{firstName}} ${problem}`);
    await insertJobs(tx, [{ kind: "campaign_fanout", payload: { campaignId: id }, runAt: opts.now, accountId }]);
    return id;
  });
}

/** Cancels what has not been sent yet; repeatable. A completed campaign is a 409. */
export async function cancelCampaign(db: Knex, accountId: string, campaignId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const campaign = await lockCampaign(tx, accountId, campaignId);
    if (!campaign) throw notFound("Campaign");
    if (campaign.status === "cancelled") return; // repeat cancel: same answer
    if (campaign.status === "completed") {
      throw new DomainError("not_cancellable", "The campaign is completed: every message reached a final status.");
    }
    await cancelCampaignRows(tx, accountId, campaignId);
    // Its messages waiting for throughput leave the queue (after their jobs: the pacer's lock order).
    await deleteThrottledSendsOfCampaign(tx, accountId, campaignId);
  });
}
