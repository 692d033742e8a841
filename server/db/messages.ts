import type { Knex } from "knex";
import type { CursorKey } from "../domain/cursor.js";
import type { Encoding } from "../domain/segments.js";
import { JOBS_CHANNEL } from "./jobs/index.js";

export type StoredStatus = "scheduled" | "sending" | "sent" | "delivered" | "failed" | "undelivered" | "cancelled";

export interface MessageRow {
  id: string;
  jobId: string;
  campaignId: string | null;
  to: string;
  from: string;
  body: string;
  status: StoredStatus;
  scheduledAt: Date;
  sentAt: Date | null;
  deliveredAt: Date | null;
  cancelledAt: Date | null;
  providerMessageId: string | null;
  segments: number;
  encoding: Encoding;
  errorCode: string | null;
  errorMessage: string | null;
  createdAt: Date;
}

export interface StatusChangeRow {
  status: Exclude<StoredStatus, "sending">;
  at: Date;
}

export interface NewMessage {
  id: string;
  jobId: string;
  campaignId?: string | null;
  to: string;
  from: string;
  body: string;
  scheduledAt: Date;
  segments: number;
  encoding: Encoding;
}

const columns = {
  id: "id",
  jobId: "job_id",
  campaignId: "campaign_id",
  to: "recipient",
  from: "sender",
  body: "body",
  status: "status",
  scheduledAt: "scheduled_at",
  sentAt: "sent_at",
  deliveredAt: "delivered_at",
  cancelledAt: "cancelled_at",
  providerMessageId: "provider_message_id",
  segments: "segments",
  encoding: "encoding",
  errorCode: "error_code",
  errorMessage: "error_message",
  createdAt: "created_at",
};

/** Inserts scheduled messages and their first history entry (the caller inserts the send jobs). */
export async function insertScheduledMessages(tx: Knex.Transaction, accountId: string, messages: NewMessage[]): Promise<void> {
  if (messages.length === 0) return;
  await tx("messages").insert(
    messages.map((m) => ({
      id: m.id,
      account_id: accountId,
      campaign_id: m.campaignId ?? null,
      job_id: m.jobId,
      recipient: m.to,
      sender: m.from,
      body: m.body,
      scheduled_at: m.scheduledAt,
      segments: m.segments,
      encoding: m.encoding,
    })),
  );
  await tx("message_status_history").insert(messages.map((m) => ({ message_id: m.id, status: "scheduled" })));
}

export async function getMessage(db: Knex, accountId: string, messageId: string): Promise<MessageRow | undefined> {
  return db("messages").where({ account_id: accountId, id: messageId }).first(columns);
}

export async function listMessages(
  db: Knex,
  accountId: string,
  opts: { statuses?: StoredStatus[]; campaignId?: string; after?: CursorKey; limit: number },
): Promise<MessageRow[]> {
  const query = db("messages").where({ account_id: accountId }).select(columns);
  if (opts.statuses) query.whereIn("status", opts.statuses);
  if (opts.campaignId) query.where({ campaign_id: opts.campaignId });
  if (opts.after) query.whereRaw("(created_at, id) < (?, ?)", [opts.after.createdAt, opts.after.id]);
  return query.orderBy([{ column: "created_at", order: "desc" }, { column: "id", order: "desc" }]).limit(opts.limit);
}

/** Status histories of the given messages, oldest entry first. */
export async function getStatusHistories(db: Knex, messageIds: string[]): Promise<Map<string, StatusChangeRow[]>> {
  const rows = await db("message_status_history")
    .whereIn("message_id", messageIds)
    .orderBy([{ column: "message_id" }, { column: "id" }])
    .select({ messageId: "message_id", status: "status", at: "at" });
  const histories = new Map<string, StatusChangeRow[]>(messageIds.map((id) => [id, []]));
  for (const row of rows) histories.get(row.messageId)!.push({ status: row.status, at: row.at });
  return histories;
}

/**
 * scheduled → cancelled as one conditional UPDATE: the send claim is the same kind of statement on the same
 * row, so exactly one of the two wins. Returns the cancelled row, or undefined when the message was not
 * in `scheduled`.
 */
export async function cancelScheduledMessage(
  tx: Knex.Transaction,
  accountId: string,
  messageId: string,
): Promise<{ jobId: string; cancelledAt: Date } | undefined> {
  const [row] = await tx("messages")
    .where({ account_id: accountId, id: messageId, status: "scheduled" })
    .update({ status: "cancelled", cancelled_at: tx.fn.now() })
    .returning(["job_id as jobId", "cancelled_at as cancelledAt"]);
  if (!row) return undefined;
  await tx("message_status_history").insert({ message_id: messageId, status: "cancelled", at: row.cancelledAt });
  return row;
}

const returning = [...Object.entries(columns).map(([alias, col]) => `${col} as ${alias}`), "account_id as accountId"];
export type OwnedMessageRow = MessageRow & { accountId: string };

/**
 * scheduled → sending, committed before the provider is called. The same kind of conditional UPDATE as the
 * cancel, on the same row: exactly one of them wins, so a cancelled message is never handed to the provider.
 */
export async function claimMessageForSending(db: Knex, messageId: string): Promise<OwnedMessageRow | undefined> {
  const [row] = await db("messages").where({ id: messageId, status: "scheduled" }).update({ status: "sending" }).returning(returning);
  return row as OwnedMessageRow | undefined;
}

/** sending → scheduled, when the provider certainly did not take the message (retried later). */
export async function returnToScheduled(db: Knex, messageId: string): Promise<boolean> {
  return (await db("messages").where({ id: messageId, status: "sending" }).update({ status: "scheduled" })) > 0;
}

export async function findMessage(db: Knex, where: { id: string } | { providerMessageId: string }): Promise<OwnedMessageRow | undefined> {
  const query = db("messages").first(returning);
  return "id" in where ? query.where({ id: where.id }) : query.where({ provider_message_id: where.providerMessageId });
}

export interface StatusUpdate {
  to: StoredStatus;
  from: StoredStatus[];
  at: Date;
  providerMessageId?: string;
  error?: { code: string; message: string } | null;
}

export interface ReceiptOutbox {
  event: string;
  seq: number;
  body: string;
  jobKind: string;
}

/**
 * One status change as ONE statement: the conditional UPDATE, its history entry, a receipt delivery for
 * every webhook of the account and a delivery job for each (the transactional outbox), and the NOTIFY. A
 * single statement is atomic and costs one round trip; measured on the dispatch benchmark, it replaced a
 * five-round-trip transaction and took most of the per-message cost with it. Returns undefined when the
 * message was not in a status that allows the change (a late or duplicate report): nothing is written.
 */
export async function updateStatusWithReceipts(
  db: Knex,
  messageId: string,
  u: StatusUpdate,
  receipt: ReceiptOutbox,
): Promise<{ id: string; campaignId: string | null; receipts: number } | undefined> {
  const sets: string[] = ["status = ?"];
  const values: unknown[] = [u.to];
  if (u.to === "sent") sets.push("sent_at = ?"), values.push(u.at);
  if (u.to === "delivered") sets.push("delivered_at = ?"), values.push(u.at);
  if (u.providerMessageId) sets.push("provider_message_id = ?"), values.push(u.providerMessageId);
  if (u.error) sets.push("error_code = ?", "error_message = ?"), values.push(u.error.code, u.error.message);
  const { rows } = await db.raw(
    `WITH m AS (
       UPDATE messages SET ${sets.join(", ")}
        WHERE id = ? AND status = ANY(?::text[])
       RETURNING id, account_id, campaign_id
     ), h AS (
       INSERT INTO message_status_history (message_id, status, at) SELECT id, ?, ? FROM m
     ), d AS (
       INSERT INTO webhook_deliveries (id, webhook_id, account_id, message_id, event, seq, body)
       SELECT gen_random_uuid(), w.id, w.account_id, m.id, ?, ?, ? FROM m JOIN webhooks w ON w.account_id = m.account_id
       RETURNING id
     ), j AS (
       INSERT INTO jobs (kind, payload, max_attempts) SELECT ?, jsonb_build_object('deliveryId', d.id), 10 FROM d
       RETURNING id
     )
     SELECT m.id, m.campaign_id AS "campaignId", (SELECT count(*) FROM j)::int AS receipts,
            CASE WHEN EXISTS (SELECT 1 FROM j) THEN pg_notify(?, '') END AS notified
       FROM m`,
    [...values, messageId, u.from, u.to, u.at, receipt.event, receipt.seq, receipt.body, receipt.jobKind, JOBS_CHANNEL],
  );
  return rows[0];
}
