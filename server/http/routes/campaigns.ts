import { getCampaign, listCampaigns } from "../../db/campaigns.js";
import { countGroupContacts } from "../../db/contacts.js";
import { groupExists } from "../../db/groups.js";
import { decodeCursor, pageOf } from "../../domain/cursor.js";
import { ApiError, invalidField, notFound } from "../../domain/errors.js";
import { requirePhone, requireSender } from "../../domain/phone.js";
import { checkScheduledAt } from "../../domain/schedule.js";
import { toCampaign } from "../serialize.js";
import type { Handlers } from "../types.js";

const notYet = () => new ApiError(501, "not_implemented", "Campaign sending is not available on this server yet.");

export const campaignHandlers: Pick<Handlers, "Campaigns_create" | "Campaigns_list" | "Campaigns_get" | "Campaigns_cancel"> = {
  async Campaigns_create({ db, account, body, now }) {
    if ((body.groupId === undefined) === (body.recipients === undefined)) {
      throw invalidField("/body", "must have exactly one audience: groupId or recipients");
    }
    if (body.type === "scheduled") {
      if (body.scheduledAt === undefined) throw invalidField("/body/scheduledAt", "is required when type is scheduled");
      checkScheduledAt(new Date(body.scheduledAt), now());
    } else if (body.scheduledAt !== undefined) {
      throw invalidField("/body/scheduledAt", "is only allowed when type is scheduled");
    }
    if (body.from !== undefined) requireSender(body.from, "/body/from");
    body.recipients?.forEach((phone, i) => requirePhone(phone, `/body/recipients/${i}`));
    if (body.groupId !== undefined) {
      if (!(await groupExists(db, account.id, body.groupId))) {
        throw new ApiError(422, "group_not_found", "groupId does not name a group of this account.", [{ path: "/body/groupId", message: "no such group" }]);
      }
      if ((await countGroupContacts(db, body.groupId)) === 0) {
        throw new ApiError(422, "empty_audience", "The group has no contacts.", [{ path: "/body/groupId", message: "group has no contacts" }]);
      }
    }
    throw notYet();
  },

  async Campaigns_list({ db, account, query }) {
    const limit = query.limit ?? 50;
    const rows = await listCampaigns(db, account.id, { status: query.status, after: decodeCursor(query.cursor), limit: limit + 1 });
    const { items, nextCursor } = pageOf(rows, limit);
    return { status: 200, body: { data: items.map(toCampaign), nextCursor } };
  },

  async Campaigns_get({ db, account, path }) {
    const campaign = await getCampaign(db, account.id, path.campaignId);
    if (!campaign) throw notFound("Campaign");
    return { status: 200, body: toCampaign(campaign) };
  },

  async Campaigns_cancel({ db, account, path }) {
    if (!(await getCampaign(db, account.id, path.campaignId))) throw notFound("Campaign");
    throw notYet();
  },
};
