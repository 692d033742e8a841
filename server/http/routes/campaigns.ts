import { getCampaign, listCampaigns } from "../../db/campaigns.js";
import { fetchPage } from "../../domain/cursor.js";
import { notFound } from "../../domain/errors.js";
import { cancelCampaign, createCampaign, updateCampaign } from "../../services/campaigns.js";
import { duplicateCampaign, pauseCampaign, resumeCampaign } from "../../services/campaignControl.js";
import { withIdempotency } from "../idempotency.js";
import { toCampaign } from "../serialize.js";
import type { Handlers } from "../types.js";
import { deploymentDestinations } from "../../config.js";

export const campaignHandlers: Pick<
  Handlers,
  | "Campaigns_create"
  | "Campaigns_list"
  | "Campaigns_get"
  | "Campaigns_update"
  | "Campaigns_cancel"
  | "Campaigns_pause"
  | "Campaigns_resume"
  | "Campaigns_duplicate"
> = {
  async Campaigns_create({ db, account, key, body, headers, config, now }) {
    // With an Idempotency-Key, a repeat within 24 h returns the first answer (as stored then) and creates nothing;
    // the service's own transaction nests inside the key's as a savepoint, so the key and the campaign commit together.
    return withIdempotency(db, account.id, headers["Idempotency-Key"], body, async (tx) => {
      const campaignId = await createCampaign(tx, account, body, {
        now: now(),
        defaultSenderId: config.defaultSenderId,
        test: key.test,
        destinations: deploymentDestinations(config),
      });
      return { status: 201 as const, body: toCampaign((await getCampaign(tx, account.id, campaignId))!) };
    });
  },

  async Campaigns_update({ db, account, key, path, body, now }) {
    await updateCampaign(db, account.id, path.campaignId, body, { now: now(), testKey: key.test });
    return { status: 200, body: toCampaign((await getCampaign(db, account.id, path.campaignId))!) };
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

  async Campaigns_cancel({ db, account, key, path }) {
    await cancelCampaign(db, account.id, path.campaignId, { testKey: key.test });
    return { status: 200, body: toCampaign((await getCampaign(db, account.id, path.campaignId))!) };
  },

  async Campaigns_pause({ db, account, key, path }) {
    await pauseCampaign(db, account.id, path.campaignId, { testKey: key.test });
    return { status: 200, body: toCampaign((await getCampaign(db, account.id, path.campaignId))!) };
  },

  async Campaigns_resume({ db, account, key, path }) {
    await resumeCampaign(db, account.id, path.campaignId, { testKey: key.test });
    return { status: 200, body: toCampaign((await getCampaign(db, account.id, path.campaignId))!) };
  },

  async Campaigns_duplicate({ db, account, key, path, body, config, now }) {
    const campaignId = await duplicateCampaign(db, account, path.campaignId, body, {
      now: now(),
      defaultSenderId: config.defaultSenderId,
      test: key.test,
      destinations: deploymentDestinations(config),
    });
    return { status: 201, body: toCampaign((await getCampaign(db, account.id, campaignId))!) };
  },
};
