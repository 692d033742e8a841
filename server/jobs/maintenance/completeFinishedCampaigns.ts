import { completeFinishedCampaigns } from "../../db/campaigns.js";
import type { Db } from "../../db/knex.js";
import { chore } from "./chore.js";

/** Campaigns whose every message is final but that a crash left `sending` (the status path completes the rest). */
export const completeFinishedCampaignsChore = (db: Db, everyMs = 60_000) =>
  chore("complete finished campaigns", everyMs, () => completeFinishedCampaigns(db));
