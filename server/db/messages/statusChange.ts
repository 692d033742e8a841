// The provider's word on messages (sent, delivered, undelivered, failed): the status change with its history
// and its receipts' outbox, in one statement.
import type { Knex } from "knex";
import { allowedFrom, type StoredStatus } from "../../domain/messageStatus.js";
import { statusIn } from "../byIdFilters.js";
import { insertJobsSql, laneNowPayloadSql, laneOf, notifyWhenSql, type ClaimedJob } from "../jobs/index.js";

export interface StatusUpdate {
  messageId: string;
  accountId: string;
  at: Date;
  providerMessageId?: string;
  error?: { code: string; message: string } | null;
  /** The receipt's exact bytes. */
  body: string;
}

export interface ReceiptOutbox {
  event: string;
  seq: number;
}

/** Receipt jobs a status change inserts already claimed by `workerId` for `leaseMs`: at most `limit`. */
export interface ReceiptJobsClaim {
  workerId: string;
  leaseMs: number;
  limit: number;
}

/**
 * Moves many messages to one status as ONE statement: the conditional UPDATE (only rows in a status the state
 * machine lets move to `to`), their
 * history entries, a receipt delivery for every webhook of each account with a delivery job each (the
 * transactional outbox), and one NOTIFY. A single statement is atomic, so a change never commits without its
 * receipts. Round trips are the cost that matters here (each one a writev syscall and a context switch on
 * both sides): one statement per batch replaced a five-round-trip transaction per message. Returns the rows that changed; a late or duplicate report changes nothing and is absent. With
 * `claimFor`, up to its limit of the receipt jobs are inserted already claimed and returned (`claimed`), and the
 * NOTIFY is sent only if some are left for any worker to claim.
 */
export async function updateStatusesWithReceipts(
  db: Knex,
  to: StoredStatus,
  updates: StatusUpdate[],
  receipt: ReceiptOutbox,
  claimFor?: ReceiptJobsClaim,
): Promise<{ changed: { id: string; campaignId: string | null }[]; claimed: ClaimedJob[] }> {
  if (updates.length === 0) return { changed: [], claimed: [] };
  const { rows } = await db.raw(
    `WITH i AS (
       SELECT * FROM unnest(?::uuid[], ?::uuid[], ?::timestamptz[], ?::text[], ?::text[], ?::text[], ?::text[])
         AS i(id, account_id, at, provider_message_id, error_code, error_message, body)
     ), m AS (
       UPDATE messages SET
         status = ?,
         deferred_until = NULL, -- shown only while held by quiet hours: a failed message is not held
         sent_at = CASE WHEN ? = 'sent' THEN i.at ELSE messages.sent_at END,
         delivered_at = CASE WHEN ? = 'delivered' THEN i.at ELSE messages.delivered_at END,
         provider_message_id = coalesce(i.provider_message_id, messages.provider_message_id),
         error_code = coalesce(i.error_code, messages.error_code),
         error_message = coalesce(i.error_message, messages.error_message)
       FROM i WHERE messages.id = ANY(?::uuid[]) AND messages.account_id = i.account_id AND messages.id = i.id AND ${statusIn("messages", "?::text[]")}
       RETURNING messages.id, messages.account_id, messages.campaign_id, i.at, i.body
     ), h AS (
       INSERT INTO message_status_history (account_id, message_id, status, at) SELECT account_id, id, ?, at FROM m
     ), d AS (
       INSERT INTO webhook_deliveries (id, webhook_id, account_id, message_id, event, seq, body)
       SELECT gen_uuid_v7(), w.id, w.account_id, m.id, ?, ?, m.body FROM m JOIN webhooks w ON w.account_id = m.account_id AND ? = ANY(w.events)
       RETURNING id, account_id
     ), j AS (
       ${insertJobsSql("deliver_receipt", {
         accountId: "d.account_id",
         payload: "jsonb_build_object('deliveryId', d.id)",
         // The first `limit` are handed to the worker that made them (claimFor), the rest are claimable.
         from: "(SELECT d.*, row_number() OVER () <= ?::int AS handed, ?::text AS worker, ?::double precision AS lease FROM d) d",
         claimed: { when: "d.handed", workerId: "d.worker", leaseSeconds: "d.lease" },
       })}
       RETURNING id, kind, payload, attempt, max_attempts, run_at, created_at, account_id, state
     ), n AS (
       SELECT ${notifyWhenSql("EXISTS (SELECT 1 FROM j WHERE state = 'available')", laneNowPayloadSql(laneOf("deliver_receipt")))} AS notified
     )
     SELECT (SELECT coalesce(json_agg(json_build_object('id', m.id, 'campaignId', m.campaign_id)), '[]') FROM m) AS changed,
            (SELECT coalesce(json_agg(json_build_object('id', j.id, 'kind', j.kind, 'payload', j.payload, 'attempt', j.attempt,
                       'maxAttempts', j.max_attempts, 'runAt', j.run_at, 'createdAt', j.created_at, 'accountId', j.account_id)), '[]')
               FROM j WHERE j.state = 'running') AS claimed
       FROM n`,
    [
      updates.map((u) => u.messageId),
      updates.map((u) => u.accountId),
      updates.map((u) => u.at),
      updates.map((u) => u.providerMessageId ?? null),
      updates.map((u) => u.error?.code ?? null),
      updates.map((u) => u.error?.message ?? null),
      updates.map((u) => u.body),
      to,
      to,
      to,
      updates.map((u) => u.messageId), // again, as `id = ANY`: the key's index condition even on a young table
      allowedFrom(to),
      to,
      receipt.event,
      receipt.seq,
      receipt.event,
      claimFor?.limit ?? 0,
      claimFor?.workerId ?? null,
      (claimFor?.leaseMs ?? 0) / 1000,
    ],
  );
  type RawJob = Omit<ClaimedJob, "runAt" | "createdAt"> & { runAt: string; createdAt: string };
  return {
    changed: rows[0].changed,
    claimed: (rows[0].claimed as RawJob[]).map((j) => ({ ...j, runAt: new Date(j.runAt), createdAt: new Date(j.createdAt) })),
  };
}
