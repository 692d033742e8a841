// The provider's word on messages (sent, delivered, undelivered, failed): the status change with its counts, its
// receipts' outbox and a multipart message's SMPP segments, in one statement. The change's time is the row's own (sent_at, delivered_at, failed_at):
// the history is derived from them (reads.ts), not written.
import type { Knex } from "knex";
import { allowedFrom, type StoredStatus } from "../../domain/messageStatus.js";
import { insertJobsSql, laneNowPayloadSql, laneOf, MAX_ATTEMPTS, notifyWhenSql, type ClaimedJob } from "../jobs/index.js";
import { statusInSql } from "../byIdFilters.js";
import { COUNTED_COLUMNS, countSpendSql, countStatusEventsSql } from "../messageCounts.js";
import { insertSegmentsSql } from "../smppSegments.js";
import { run, sql } from "../sql.js";
import { handOffSql } from "../receiptHandoffs.js";

export interface StatusUpdate {
  messageId: string;
  accountId: string;
  at: Date;
  providerMessageId?: string;
  /** The carrier's ids of a message sent in several SMPP segments, the first its providerMessageId. */
  segmentIds?: string[];
  error?: { code: string; message: string } | null;
  /** The receipt's exact bytes. */
  body: string;
}

export interface ReceiptOutbox {
  event: string;
  seq: number;
}

/** Receipt deliveries a status change hands to `workerId` for `leaseMs`, without a job: at most `limit`. */
export interface ReceiptJobsClaim {
  workerId: string;
  leaseMs: number;
  limit: number;
}

/**
 * Moves many messages to one status as ONE statement: the conditional UPDATE (only rows in a status the state
 * machine lets move to `to`), their counts for reports, a receipt delivery for every webhook of each account with a delivery job each (the
 * transactional outbox), and one NOTIFY. A single statement is atomic, so a change never commits without its
 * receipts. Round trips are the cost that matters here (each one a writev syscall and a context switch on
 * both sides): one statement per batch replaced a five-round-trip transaction per message. Returns the rows that changed; a late or duplicate report changes nothing and is absent. With
 * `claimFor`, up to its limit of the deliveries are handed to that worker (one lease for them all, a
 * receipt_handoffs row; no job: two row writes fewer each) and returned as rowless jobs (`claimed`); the others
 * get a job each, and the NOTIFY is sent only if there are any.
 */
export async function updateStatusesWithReceipts(
  db: Knex,
  to: StoredStatus,
  updates: StatusUpdate[],
  receipt: ReceiptOutbox,
  claimFor?: ReceiptJobsClaim,
): Promise<{ changed: { id: string; campaignId: string | null }[]; claimed: ClaimedJob[] }> {
  if (updates.length === 0) return { changed: [], claimed: [] };
  const column = <T>(pick: (u: StatusUpdate) => T) => updates.map(pick);
  // The ids twice: in unnest, and as `id = ANY` for the key's index condition even on a young table (byIdFilters.ts).
  const ids = column((u) => u.messageId);
  // The spend of the messages whose charge this status makes final (reports; migration 051).
  const spend = countSpendSql("m", to, "m.at");
  // A multipart message's segments are recorded with its `sent` (a one-part one's carrier id is on its row).
  const segments = insertSegmentsSql(updates);
  // The first `claimFor.limit` deliveries are handed to the worker that made them, under one lease (their
  // handoff) and with no job row (ClaimedJob.rowless); the rest get a job each, claimable by any worker.
  // A batched webhook's deliveries get neither: they await its batches (jobs/receiptBatches.ts).
  const receiptJobs = insertJobsSql("deliver_receipt", {
    accountId: sql`d.account_id`,
    payload: sql`jsonb_build_object('deliveryId', d.id)`,
    from: sql`d JOIN t ON t.delivery_id = d.id WHERE NOT d.handed AND NOT t.batched`,
  });
  const { rows } = await run<{
    changed: { id: string; campaignId: string | null }[];
    handed: { id: string; accountId: string; createdAt: string }[];
  }>(
    db,
    sql`WITH i AS (
       SELECT * FROM unnest(${ids}::uuid[], ${column((u) => u.accountId)}::uuid[], ${column((u) => u.at)}::timestamptz[],
                            ${column((u) => u.providerMessageId ?? null)}::text[], ${column((u) => u.error?.code ?? null)}::text[],
                            ${column((u) => u.error?.message ?? null)}::text[], ${column((u) => u.body)}::text[])
         AS i(id, account_id, at, provider_message_id, error_code, error_message, body)
     ), m AS (
       UPDATE messages SET
         status = ${to},
         deferred_until = NULL, -- shown only while held by quiet hours: a failed message is not held
         sent_at = CASE WHEN ${to} = 'sent' THEN i.at ELSE messages.sent_at END,
         delivered_at = CASE WHEN ${to} = 'delivered' THEN i.at ELSE messages.delivered_at END,
         failed_at = CASE WHEN ${to} IN ('failed', 'undelivered') THEN i.at ELSE messages.failed_at END,
         provider_message_id = coalesce(i.provider_message_id, messages.provider_message_id),
         error_code = coalesce(i.error_code, messages.error_code),
         error_message = coalesce(i.error_message, messages.error_message)
       FROM i WHERE messages.id = ANY(${ids}::uuid[]) AND messages.account_id = i.account_id AND messages.id = i.id
        AND ${statusInSql("messages", allowedFrom(to))}
       RETURNING messages.id, messages.account_id, ${sql.raw(COUNTED_COLUMNS.map((c) => `messages.${c}`).join(", "))}, i.at, i.body
     ), k AS (
       ${countStatusEventsSql("m", to, "m.at")}
     )${spend ? sql`, s AS (${spend})` : sql``}${segments ? sql`, g AS (${segments})` : sql``}, c AS (
       SELECT ${claimFor?.limit ?? 0}::int AS handed, ${claimFor?.workerId ?? null}::text AS worker,
              ${(claimFor?.leaseMs ?? 0) / 1000}::double precision AS lease
     ), t AS (
       SELECT gen_uuid_v7() AS delivery_id, w.id, w.account_id, m.id AS message_id, m.body, w.batch_max_events IS NOT NULL AS batched,
              w.batch_max_events IS NULL AND row_number() OVER (ORDER BY w.batch_max_events IS NOT NULL) <= c.handed AS handed
         FROM m JOIN webhooks w ON w.account_id = m.account_id AND ${receipt.event} = ANY(w.events) CROSS JOIN c
     ), h AS (
       -- One lease for all the deliveries handed to this worker (migration 072): no lease column of a delivery,
       -- which its outcome would change, is in any index.
       ${handOffSql(sql`(SELECT t.delivery_id, t.account_id FROM t WHERE t.handed)`, sql`(SELECT worker FROM c)`, sql`(SELECT lease FROM c)`)}
     ), d AS (
       INSERT INTO webhook_deliveries (id, webhook_id, account_id, message_id, event, seq, body, handoff_id, awaits_batch)
       SELECT t.delivery_id, t.id, t.account_id, t.message_id, ${receipt.event}, ${receipt.seq}, t.body,
              CASE WHEN t.handed THEN (SELECT h.id FROM h) END, t.batched
         FROM t
       RETURNING id, account_id, handoff_id IS NOT NULL AS handed, created_at
     ), j AS (
       ${receiptJobs}
       RETURNING 1
     ), n AS (
       SELECT ${notifyWhenSql(sql`EXISTS (SELECT 1 FROM j)`, laneNowPayloadSql(laneOf("deliver_receipt")))} AS notified
     )
     SELECT (SELECT coalesce(json_agg(json_build_object('id', m.id, 'campaignId', m.campaign_id)), '[]') FROM m) AS changed,
            (SELECT coalesce(json_agg(json_build_object('id', d.id, 'accountId', d.account_id, 'createdAt', d.created_at)), '[]')
               FROM d WHERE d.handed) AS handed
       FROM n`,
  );
  return {
    changed: rows[0]!.changed,
    claimed: rows[0]!.handed.map((d) => ({
      id: d.id,
      kind: "deliver_receipt",
      payload: { deliveryId: d.id },
      attempt: 1,
      maxAttempts: MAX_ATTEMPTS.deliver_receipt,
      runAt: new Date(d.createdAt),
      createdAt: new Date(d.createdAt),
      accountId: d.accountId,
      rowless: true,
    })),
  };
}
