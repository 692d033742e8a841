import { randomUUID } from "node:crypto";
import {
  audienceNameBounds,
  cancelCampaign,
  getCampaign,
  insertCampaign,
  listCampaigns,
  lockCampaign,
  snapshotGroupAudience,
  snapshotListAudience,
} from "../../db/campaigns.js";
import { groupExists } from "../../db/groups.js";
import { insertJobs } from "../../db/jobs/index.js";
import { fetchPage } from "../../domain/cursor.js";
import { ApiError, groupNotFound, invalidField, notFound } from "../../domain/errors.js";
import { personalisationProblem } from "../../domain/personalise.js";
import { requirePhone, requireSender } from "../../domain/phone.js";
import { checkScheduledAt } from "../../domain/schedule.js";
import { CAMPAIGN_FANOUT_JOB } from "../../jobs/handlers/campaignFanout.js";
import { withIdempotency } from "../idempotency.js";
import { toCampaign } from "../serialize.js";
import type { Handlers } from "../types.js";

export const campaignHandlers: Pick<Handlers, "Campaigns_create" | "Campaigns_list" | "Campaigns_get" | "Campaigns_cancel"> = {
  async Campaigns_create({ db, account, body, headers, config, now }) {
    if ((body.groupId === undefined) === (body.recipients === undefined)) {
      throw invalidField("/body", "must have exactly one audience: groupId or recipients");
    }
    let scheduledAt: Date | null = null;
    if (body.type === "scheduled") {
      if (body.scheduledAt === undefined) throw invalidField("/body/scheduledAt", "is required when type is scheduled");
      scheduledAt = new Date(body.scheduledAt);
      checkScheduledAt(scheduledAt, now());
    } else if (body.scheduledAt !== undefined) {
      throw invalidField("/body/scheduledAt", "is only allowed when type is scheduled");
    }
    const from = body.from === undefined ? config.defaultSenderId : requireSender(body.from, "/body/from");
    // Normalised and de-duplicated: one number listed twice gets one message.
    const recipients = body.recipients && [...new Set(body.recipients.map((phone, i) => requirePhone(phone, `/body/recipients/${i}`)))];

    // With an Idempotency-Key, a repeat within 24 h returns the first answer (as stored then) and creates nothing.
    return withIdempotency(db, account.id, headers["Idempotency-Key"], body, async (tx) => {
      const id = randomUUID();
      const groupId = body.groupId ?? null;
      if (groupId && !(await groupExists(tx, account.id, groupId))) throw groupNotFound();
      await insertCampaign(tx, account.id, { id, name: body.name, message: body.message, type: body.type, from, groupId, scheduledAt });
      const size = groupId ? await snapshotGroupAudience(tx, account.id, id, groupId) : await snapshotListAudience(tx, id, recipients!);
      if (size === 0) throw new ApiError(422, "empty_audience", "The group has no contacts.", [{ path: "/body/groupId", message: "group has no contacts" }]);
      const names = await audienceNameBounds(tx, id);
      const problem = personalisationProblem(body.message, names.longest, names.someEmpty);
      if (problem) throw invalidField("/body/message", `personalised with {{firstName}} ${problem}`);
      await insertJobs(tx, [{ id: randomUUID(), kind: CAMPAIGN_FANOUT_JOB, payload: { campaignId: id }, runAt: now(), maxAttempts: 25 }]);
      return { status: 201 as const, body: toCampaign((await getCampaign(tx, account.id, id))!) };
    });
  },

  async Campaigns_list({ db, account, query }) {
    const { items, nextCursor } = await fetchPage(query, (w) => listCampaigns(db, account.id, { status: query.status, ...w }));
    return { status: 200, body: { data: items.map(toCampaign), nextCursor } };
  },

  async Campaigns_get({ db, account, path }) {
    const campaign = await getCampaign(db, account.id, path.campaignId);
    if (!campaign) throw notFound("Campaign");
    return { status: 200, body: toCampaign(campaign) };
  },

  async Campaigns_cancel({ db, account, path }) {
    await db.transaction(async (tx) => {
      const campaign = await lockCampaign(tx, account.id, path.campaignId);
      if (!campaign) throw notFound("Campaign");
      if (campaign.status === "cancelled") return; // repeat cancel: same answer
      if (campaign.status === "completed") {
        throw new ApiError(409, "not_cancellable", "The campaign is completed: every message reached a final status.");
      }
      await cancelCampaign(tx, path.campaignId);
    });
    return { status: 200, body: toCampaign((await getCampaign(db, account.id, path.campaignId))!) };
  },
};
