import type { Knex } from "knex";
import type { CursorKey } from "../domain/cursor.js";

export type CampaignStatus = "scheduled" | "sending" | "completed" | "cancelled";

export interface CampaignStats {
  total: number;
  scheduled: number;
  sent: number;
  delivered: number;
  failed: number;
  undelivered: number;
  cancelled: number;
}

export interface CampaignRow {
  id: string;
  name: string;
  message: string;
  type: "instant" | "scheduled";
  from: string;
  groupId: string | null;
  status: CampaignStatus;
  scheduledAt: Date | null;
  createdAt: Date;
  stats: CampaignStats;
}

// Live stats straight from the messages: one indexed aggregate per campaign ('sending' counts as scheduled,
// as the API shows it).
const STATS_SQL = `(SELECT json_build_object(
    'total', count(*),
    'scheduled', count(*) FILTER (WHERE m.status IN ('scheduled', 'sending')),
    'sent', count(*) FILTER (WHERE m.status = 'sent'),
    'delivered', count(*) FILTER (WHERE m.status = 'delivered'),
    'failed', count(*) FILTER (WHERE m.status = 'failed'),
    'undelivered', count(*) FILTER (WHERE m.status = 'undelivered'),
    'cancelled', count(*) FILTER (WHERE m.status = 'cancelled'))
  FROM messages m WHERE m.campaign_id = c.id)`;

function selectCampaigns(db: Knex, accountId: string) {
  return db("campaigns as c")
    .where("c.account_id", accountId)
    .select({
      id: "c.id",
      name: "c.name",
      message: "c.message",
      type: "c.type",
      from: "c.sender",
      groupId: "c.group_id",
      status: "c.status",
      scheduledAt: "c.scheduled_at",
      createdAt: "c.created_at",
      stats: db.raw(STATS_SQL),
    });
}

export async function getCampaign(db: Knex, accountId: string, campaignId: string): Promise<CampaignRow | undefined> {
  return selectCampaigns(db, accountId).where("c.id", campaignId).first();
}

export async function listCampaigns(
  db: Knex,
  accountId: string,
  opts: { status?: CampaignStatus; after?: CursorKey; limit: number },
): Promise<CampaignRow[]> {
  const query = selectCampaigns(db, accountId);
  if (opts.status) query.where("c.status", opts.status);
  if (opts.after) query.whereRaw("(c.created_at, c.id) < (?, ?)", [opts.after.createdAt, opts.after.id]);
  return query.orderBy([{ column: "c.created_at", order: "desc" }, { column: "c.id", order: "desc" }]).limit(opts.limit);
}
