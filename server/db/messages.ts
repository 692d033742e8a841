import type { Knex } from "knex";
import type { CursorKey } from "../domain/cursor.js";
import type { Encoding } from "../domain/segments.js";

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
