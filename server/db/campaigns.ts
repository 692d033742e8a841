import type { Knex } from "knex";
import type { components } from "../../generated/api.js";
import type { CursorKey } from "../domain/cursor.js";
import { byAccountKeysSql } from "./byIdFilters.js";
import { cancelCampaignMessages, moveCampaignMessages } from "./messages/index.js";
import { cursorAtColumn, newestFirstPage } from "./newestFirstPage.js";
import { CAMPAIGN_DEFAULTS, type Category, type Priority } from "../domain/sendingPolicy.js";

/**
 * draft: made by duplicate, its audience snapshotted, nothing made or sent until resumed.
 * scheduled: waiting for its time; sending: its first message is being sent (markCampaignsSending).
 * paused: by pause, from scheduled or sending; resume puts it back. completed, cancelled: final.
 * Who moves them: services/campaigns.ts and services/campaignControl.ts; the send path (→ sending) and
 * completeCampaignIfDone (→ completed).
 */
export type CampaignStatus = "draft" | "scheduled" | "sending" | "paused" | "completed" | "cancelled";

/** The contract's stats shape, computed by STATS_SQL below. */
export type CampaignStats = components["schemas"]["CampaignStats"];

export interface CampaignRow {
  id: string;
  accountId: string;
  name: string;
  message: string;
  type: "instant" | "scheduled";
  from: string;
  senderPoolId: string | null;
  groupId: string | null;
  status: CampaignStatus;
  scheduledAt: Date | null;
  validityPeriod: number | null;
  category: Category;
  priority: Priority;
  reference: string | null;
  metadata: Record<string, string> | null;
  smartEncoding: boolean;
  fallbacks: Record<string, string> | null;
  createdAt: Date;
  /** When it was paused, while it is; null otherwise. */
  pausedAt: Date | null;
  audienceSize: number;
  fanoutDone: number;
  stats: CampaignStats;
  /** Its audience priced at creation (micro-units of `currency`), or null without a price list then. */
  estimatedCost: number | null;
  currency: string;
  /** The latest deferredUntil of its messages held by quiet hours, or null. */
  deferredUntil: Date | null;
}

// Live stats from the messages (one indexed aggregate), plus the recipients fan-out has not turned into
// messages yet: they count as scheduled, or as cancelled once the campaign is cancelled. 'sending' is
// internal and counts as scheduled, as the API shows it.
// The same aggregate says how many are held by quiet hours and until when (deferred_until is set only while a
// message is scheduled).
const STATS_SQL = `(SELECT json_build_object(
    'total', c.audience_size,
    'scheduled', count(*) FILTER (WHERE m.status IN ('scheduled', 'sending'))
                 + CASE WHEN c.status = 'cancelled' THEN 0 ELSE c.audience_size - c.fanout_done END,
    'deferred', count(*) FILTER (WHERE m.status = 'scheduled' AND m.deferred_until IS NOT NULL),
    'deferredUntil', max(m.deferred_until) FILTER (WHERE m.status = 'scheduled'),
    'sent', count(*) FILTER (WHERE m.status = 'sent'),
    'delivered', count(*) FILTER (WHERE m.status = 'delivered'),
    'failed', count(*) FILTER (WHERE m.status = 'failed'),
    'undelivered', count(*) FILTER (WHERE m.status = 'undelivered'),
    'cancelled', count(*) FILTER (WHERE m.status = 'cancelled')
                 + CASE WHEN c.status = 'cancelled' THEN c.audience_size - c.fanout_done ELSE 0 END,
    'optedOut', c.opted_out,
    'skipped', c.skipped,
    -- Every reason a recipient got no message: those left out, and those opted out at fan-out (stats.optedOut).
    'skippedBy', c.skipped_by || CASE WHEN c.opted_out > 0 THEN jsonb_build_object('opted_out', c.opted_out) ELSE '{}' END)
  FROM messages m WHERE m.account_id = c.account_id AND m.campaign_id = c.id)`;

function selectCampaigns(db: Knex) {
  return db("campaigns as c").select({
    id: "c.id",
    accountId: "c.account_id",
    name: "c.name",
    message: "c.message",
    type: "c.type",
    from: "c.sender",
    senderPoolId: "c.sender_pool_id",
    groupId: "c.group_id",
    status: "c.status",
    scheduledAt: "c.scheduled_at",
    validityPeriod: "c.validity_period",
    category: "c.category",
    priority: "c.priority",
    reference: "c.reference",
    metadata: "c.metadata",
    smartEncoding: "c.smart_encoding",
    fallbacks: "c.fallbacks",
    createdAt: "c.created_at",
    pausedAt: "c.paused_at",
    audienceSize: "c.audience_size",
    fanoutDone: "c.fanout_done",
    estimatedCost: "c.estimated_cost",
    currency: db.raw("(SELECT currency FROM accounts a WHERE a.id = c.account_id)"),
    stats: db.raw(STATS_SQL),
  });
}

type SelectedRow = Omit<CampaignRow, "deferredUntil" | "stats"> & { stats: CampaignStats & { deferredUntil: string | null } };

/** Moves the aggregate's deferredUntil out of the contract's stats. */
function fromSelected({ stats: { deferredUntil, ...stats }, ...row }: SelectedRow): CampaignRow {
  return { ...row, stats, deferredUntil: deferredUntil === null ? null : new Date(deferredUntil) };
}

export async function getCampaign(db: Knex, accountId: string, campaignId: string): Promise<CampaignRow | undefined> {
  const row = (await selectCampaigns(db).where({ "c.account_id": accountId, "c.id": campaignId }).first()) as SelectedRow | undefined;
  return row && fromSelected(row);
}

export async function listCampaigns(
  db: Knex,
  accountId: string,
  opts: { status?: CampaignStatus; after?: CursorKey; limit: number },
): Promise<(CampaignRow & CursorKey)[]> {
  const query = selectCampaigns(db).select(cursorAtColumn(db, "c.created_at")).where("c.account_id", accountId);
  if (opts.status) query.where("c.status", opts.status);
  const rows = (await newestFirstPage(query, opts.after, opts.limit, "c.")) as unknown as (SelectedRow & CursorKey)[];
  return rows.map((row) => ({ ...fromSelected(row), cursorAt: row.cursorAt }));
}

export interface NewCampaign {
  id: string;
  name: string;
  message: string;
  type: "instant" | "scheduled";
  from: string;
  /** Its messages' senders come from this pool (`from` is then empty). */
  senderPoolId?: string | null;
  groupId: string | null;
  scheduledAt: Date | null;
  /** Seconds each message has to be handed to the provider, from scheduledAt (instant: creation); null: no limit. */
  validityPeriod?: number | null;
  /** Defaults: marketing, low. */
  category?: Category;
  priority?: Priority;
  /** Made with a test key: its messages are test messages. */
  test?: boolean;
  /** Recipients left out at creation (their destination not allowed, or a value missing)… */
  skipped?: number;
  /** …counted by reason (their sum is `skipped`). */
  skippedBy?: Record<string, number>;
  reference?: string | null;
  metadata?: Record<string, string> | null;
  smartEncoding?: boolean;
  fallbacks?: Record<string, string> | null;
  templateId?: string | null;
  /** A duplicate: nothing is made or sent until it is resumed. */
  draft?: boolean;
}

export async function insertCampaign(tx: Knex.Transaction, accountId: string, c: NewCampaign): Promise<void> {
  await tx("campaigns").insert({
    id: c.id,
    account_id: accountId,
    name: c.name,
    message: c.message,
    type: c.type,
    sender: c.from,
    sender_pool_id: c.senderPoolId ?? null,
    group_id: c.groupId,
    scheduled_at: c.scheduledAt,
    validity_period: c.validityPeriod ?? null,
    category: c.category ?? CAMPAIGN_DEFAULTS.category,
    priority: c.priority ?? CAMPAIGN_DEFAULTS.priority,
    status: c.draft ? "draft" : c.type === "scheduled" ? "scheduled" : "sending",
    test: c.test ?? false,
    skipped: c.skipped ?? 0,
    skipped_by: JSON.stringify(c.skippedBy ?? {}),
    reference: c.reference ?? null,
    metadata: c.metadata ? JSON.stringify(c.metadata) : null,
    smart_encoding: c.smartEncoding ?? false,
    fallbacks: c.fallbacks && Object.keys(c.fallbacks).length > 0 ? JSON.stringify(c.fallbacks) : null,
    template_id: c.templateId ?? null,
  });
}

/** scheduled → sending when the first of their messages is being sent. */
export async function markCampaignsSending(db: Knex, campaigns: { id: string; accountId: string }[]): Promise<void> {
  if (campaigns.length === 0) return;
  await db("campaigns").where(byAccountKeysSql("", campaigns).forBuilder(db)).where({ status: "scheduled" }).update({ status: "sending" });
}

/** A new campaign's audience as priced (services/campaigns.ts, with its reservation). */
export async function setEstimatedCost(tx: Knex.Transaction, accountId: string, campaignId: string, cost: number): Promise<void> {
  await tx("campaigns").where({ account_id: accountId, id: campaignId }).update({ estimated_cost: cost });
}

/** sending → completed once fan-out is done and every message reached a final status. */
export async function completeCampaignIfDone(db: Knex, accountId: string, campaignId: string): Promise<boolean> {
  const count = await db("campaigns")
    .where({ account_id: accountId, id: campaignId })
    .whereIn("status", ["sending", "scheduled"])
    .whereRaw("fanout_done = audience_size")
    .whereNotExists(
      db("messages")
        .where({ account_id: accountId, campaign_id: campaignId })
        .whereIn("status", ["scheduled", "sending", "sent"])
        .select(db.raw("1")),
    )
    .update({ status: "completed", completed_at: db.fn.now() });
  return count > 0;
}

/**
 * Cancels the campaign and, set-based, every message of it still scheduled (with history and jobs).
 * Returns the number of messages cancelled, or undefined when the campaign was not cancellable.
 */
export async function cancelCampaign(tx: Knex.Transaction, accountId: string, campaignId: string): Promise<number | undefined> {
  const updated = await tx("campaigns")
    .where({ account_id: accountId, id: campaignId })
    .whereIn("status", ["draft", "scheduled", "sending", "paused"])
    .update({ status: "cancelled", cancelled_at: tx.fn.now() });
  if (!updated) return undefined;
  return cancelCampaignMessages(tx, accountId, campaignId);
}

/**
 * Moves a campaign not yet started to `at`: the campaign (fan-out reads its time under the same row lock, so
 * messages it makes later get it too), then its scheduled messages and their send jobs. The caller holds the
 * campaign's lock.
 */
export async function moveCampaign(tx: Knex.Transaction, accountId: string, campaignId: string, at: Date, validityPeriod: number | null) {
  await tx("campaigns").where({ account_id: accountId, id: campaignId }).update({ scheduled_at: at });
  const validUntil = validityPeriod === null ? null : new Date(at.getTime() + validityPeriod * 1000);
  return moveCampaignMessages(tx, accountId, campaignId, at, validUntil);
}

/** A draft's time set: it becomes a scheduled campaign (still a draft), sent at `at` once started. */
export async function scheduleDraft(tx: Knex.Transaction, accountId: string, campaignId: string, at: Date): Promise<void> {
  await tx("campaigns").where({ account_id: accountId, id: campaignId, status: "draft" }).update({ type: "scheduled", scheduled_at: at });
}

/** scheduled | sending → paused (the caller holds the campaign's lock and parks its messages' jobs). */
export async function markCampaignPaused(tx: Knex.Transaction, accountId: string, campaignId: string): Promise<void> {
  await tx("campaigns").where({ account_id: accountId, id: campaignId }).update({ status: "paused", paused_at: tx.fn.now() });
}

/**
 * paused | draft → scheduled (a scheduled campaign whose time is still ahead) or sending (the caller holds the
 * campaign's lock and makes its messages' jobs due). Returns whether fan-out has recipients left to make.
 */
export async function markCampaignResumed(tx: Knex.Transaction, accountId: string, campaignId: string): Promise<{ fanoutLeft: boolean }> {
  const [row] = await tx("campaigns")
    .where({ account_id: accountId, id: campaignId })
    .update({
      status: tx.raw("CASE WHEN type = 'scheduled' AND scheduled_at > now() THEN 'scheduled' ELSE 'sending' END"),
      paused_at: null,
      started_at: tx.raw("CASE WHEN status = 'draft' THEN now() ELSE started_at END"),
    })
    .returning<{ fanoutLeft: boolean }[]>(tx.raw(`fanout_done < audience_size AS "fanoutLeft"`));
  return row!;
}

/** Renames a campaign. */
export async function renameCampaign(tx: Knex.Transaction, accountId: string, campaignId: string, name: string): Promise<void> {
  await tx("campaigns").where({ account_id: accountId, id: campaignId }).update({ name });
}

/** Status and lock of one campaign of the account (for cancel). */
export async function lockCampaign(
  tx: Knex.Transaction,
  accountId: string,
  campaignId: string,
): Promise<{ status: CampaignStatus; test: boolean; validityPeriod: number | null } | undefined> {
  return tx("campaigns")
    .where({ account_id: accountId, id: campaignId })
    .forUpdate()
    .first("status", "test", { validityPeriod: "validity_period" });
}

/** What a duplicate copies of a campaign (its text as stored, its settings, its audience rule). */
export async function campaignToCopy(db: Knex, accountId: string, campaignId: string) {
  return db("campaigns").where({ account_id: accountId, id: campaignId }).first<
    | {
        name: string;
        message: string;
        from: string;
        senderPoolId: string | null;
        groupId: string | null;
        validityPeriod: number | null;
        category: Category;
        priority: Priority;
        reference: string | null;
        metadata: Record<string, string> | null;
        smartEncoding: boolean;
        fallbacks: Record<string, string> | null;
        templateId: string | null;
        test: boolean;
      }
    | undefined
  >({
    name: "name",
    message: "message",
    from: "sender",
    senderPoolId: "sender_pool_id",
    groupId: "group_id",
    validityPeriod: "validity_period",
    category: "category",
    priority: "priority",
    reference: "reference",
    metadata: "metadata",
    smartEncoding: "smart_encoding",
    fallbacks: "fallbacks",
    templateId: "template_id",
    test: "test",
  });
}

/** Completes every campaign that is done but was not marked (a crash between a commit and its check). */
export async function completeFinishedCampaigns(db: Knex): Promise<number> {
  const done: { id: string; accountId: string }[] = await db("campaigns")
    .where({ status: "sending" })
    .whereRaw("fanout_done = audience_size")
    .select({ id: "id", accountId: "account_id" });
  let completed = 0;
  for (const c of done) if (await completeCampaignIfDone(db, c.accountId, c.id)) completed++;
  return completed;
}
