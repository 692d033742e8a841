// A campaign's audience: the snapshot made at creation (a group's contacts with what their placeholders are
// filled with, or a pasted list), and fan-out reading it back in batches (jobs/handlers/campaignFanout.ts).
import type { Knex } from "knex";
import type { Category, Priority } from "../domain/sendingPolicy.js";
import type { CampaignStatus } from "./campaigns.js";
import { run, sql } from "./sql.js";

/**
 * Snapshots the audience: the group's contacts as they are now (a contact added later is not included), in
 * one INSERT … SELECT. Returns the audience size, also stored on the campaign.
 */
export async function snapshotGroupAudience(
  tx: Knex.Transaction,
  accountId: string,
  campaignId: string,
  groupId: string,
  leaveOut: string[] = [],
): Promise<number> {
  const { rowCount } = await run(
    tx,
    sql`INSERT INTO campaign_recipients (account_id, campaign_id, seq, phone, first_name, last_name, custom_fields)
        SELECT c.account_id, ${campaignId}, row_number() OVER (ORDER BY c.id), c.phone, c.first_name, c.last_name,
               nullif(c.custom_fields, '{}'::jsonb)
          FROM contacts c JOIN contact_groups cg ON cg.account_id = c.account_id AND cg.contact_id = c.id
         WHERE c.account_id = ${accountId} AND cg.group_id = ${groupId} AND c.phone <> ALL(${leaveOut}::text[])`,
  );
  await tx("campaigns").where({ account_id: accountId, id: campaignId }).update({ audience_size: rowCount });
  return rowCount;
}

/** A group's contacts as a campaign's audience: each phone with what its placeholders are filled with. */
export interface AudienceMember {
  phone: string;
  firstName: string | null;
  lastName: string | null;
  customFields: Record<string, string> | null;
}

/** A group's contacts (the audience a group campaign would snapshot). */
export async function groupAudience(tx: Knex, accountId: string, groupId: string): Promise<AudienceMember[]> {
  return tx("contacts as c")
    .join("contact_groups as cg", (j) => j.on("cg.account_id", "c.account_id").andOn("cg.contact_id", "c.id"))
    .where({ "c.account_id": accountId, "cg.group_id": groupId })
    .select({ phone: "c.phone", firstName: "c.first_name", lastName: "c.last_name", customFields: "c.custom_fields" });
}

/** Snapshots a recipients list (already normalised and de-duplicated). */
export async function snapshotListAudience(tx: Knex.Transaction, accountId: string, campaignId: string, phones: string[]): Promise<number> {
  await run(
    tx,
    sql`INSERT INTO campaign_recipients (account_id, campaign_id, seq, phone)
        SELECT ${accountId}::uuid, ${campaignId}, r.seq, r.phone FROM unnest(${phones}::text[]) WITH ORDINALITY AS r(phone, seq)`,
  );
  await tx("campaigns").where({ account_id: accountId, id: campaignId }).update({ audience_size: phones.length });
  return phones.length;
}

/** The numbers of a recipients-list campaign's audience, in its order (a duplicate takes the same list). */
export async function listAudiencePhones(db: Knex, accountId: string, campaignId: string): Promise<string[]> {
  const rows = await db("campaign_recipients").where({ account_id: accountId, campaign_id: campaignId }).orderBy("seq").select("phone");
  return rows.map((r: { phone: string }) => r.phone);
}

export interface FanoutBatch {
  campaign: {
    id: string;
    accountId: string;
    message: string;
    from: string;
    senderPoolId: string | null;
    status: CampaignStatus;
    scheduledAt: Date | null;
    /** When it started: its creation, or a draft's resume (an instant campaign's validity counts from it). */
    startedAt: Date;
    validityPeriod: number | null;
    category: Category;
    priority: Priority;
    test: boolean;
    reference: string | null;
    metadata: Record<string, string> | null;
    smartEncoding: boolean;
    fallbacks: Record<string, string> | null;
  };
  recipients: ({ seq: number } & AudienceMember)[];
}

/**
 * Locks the campaign and reads the next `size` recipients not yet turned into messages. The row lock
 * serialises fan-out with cancel: a cancelled campaign gets no further messages.
 */
export async function nextFanoutBatch(
  tx: Knex.Transaction,
  accountId: string,
  campaignId: string,
  size: number,
): Promise<FanoutBatch | undefined> {
  const campaign = await tx("campaigns")
    .where({ account_id: accountId, id: campaignId })
    .forUpdate()
    .first({
      id: "id",
      accountId: "account_id",
      message: "message",
      from: "sender",
      senderPoolId: "sender_pool_id",
      status: "status",
      scheduledAt: "scheduled_at",
      startedAt: tx.raw("COALESCE(started_at, created_at)"),
      validityPeriod: "validity_period",
      category: "category",
      priority: "priority",
      test: "test",
      reference: "reference",
      metadata: "metadata",
      smartEncoding: "smart_encoding",
      fallbacks: "fallbacks",
      fanoutDone: "fanout_done",
    });
  if (!campaign) return undefined;
  const recipients = await tx("campaign_recipients")
    .where({ account_id: accountId, campaign_id: campaignId })
    .andWhere("seq", ">", campaign.fanoutDone)
    .orderBy("seq")
    .limit(size)
    .select({ seq: "seq", phone: "phone", firstName: "first_name", lastName: "last_name", customFields: "custom_fields" });
  return { campaign, recipients };
}

export async function recordFanoutProgress(
  tx: Knex.Transaction,
  accountId: string,
  campaignId: string,
  lastSeq: number,
  optedOut = 0,
  /** Recipients skipped in this batch (given no message), by reason: added to skipped and skipped_by. */
  skippedBy: Record<string, number> = {},
): Promise<void> {
  const reasons = Object.entries(skippedBy).filter(([, n]) => n > 0);
  const total = reasons.reduce((sum, [, n]) => sum + n, 0);
  await tx("campaigns")
    .where({ account_id: accountId, id: campaignId })
    .update({
      fanout_done: lastSeq,
      opted_out: sql`opted_out + ${optedOut}`.forBuilder(tx),
      ...(total > 0
        ? {
            skipped: sql`skipped + ${total}`.forBuilder(tx),
            // Each reason's count added to what the campaign had (jsonb_each of the batch's counts).
            skipped_by: sql`skipped_by || (SELECT jsonb_object_agg(k, coalesce((skipped_by->>k)::int, 0) + v::int)
                                            FROM jsonb_each_text(${JSON.stringify(Object.fromEntries(reasons))}::jsonb) AS r(k, v))`.forBuilder(
              tx,
            ),
          }
        : {}),
    });
}
