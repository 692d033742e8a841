import type { Knex } from "knex";
import { prepared, runPrepared } from "./prepared.js";
import { sql, type Sql } from "./sql.js";

export interface SegmentRow {
  segmentId: string;
  messageId: string;
  providerMessageId: string;
  seq: number;
  total: number;
  stat: string | null;
  err: string | null;
}

/**
 * SQL: the INSERT (for a CTE of the `sent` status statement, db/messages/statusChange.ts) that records the
 * carrier's ids of the segments of each message sent in more than one; the first is its providerMessageId. A
 * message sent in one keeps its carrier id on its own row (`provider_message_id`, migration 069): no segment
 * row. Undefined when no message has several.
 */
export function insertSegmentsSql(messages: { messageId: string; segmentIds?: string[] }[]): Sql | undefined {
  const rows = messages.flatMap((m) =>
    (m.segmentIds?.length ?? 0) > 1
      ? m.segmentIds!.map((id, i) => ({ id, messageId: m.messageId, first: m.segmentIds![0]!, seq: i + 1, total: m.segmentIds!.length }))
      : [],
  );
  if (rows.length === 0) return undefined;
  return sql`INSERT INTO smpp_segments (segment_id, message_id, provider_message_id, seq, total)
         SELECT * FROM unnest(${rows.map((r) => r.id)}::text[], ${rows.map((r) => r.messageId)}::uuid[],
                              ${rows.map((r) => r.first)}::text[], ${rows.map((r) => r.seq)}::int[], ${rows.map((r) => r.total)}::int[])`;
}

/** A segment's receipt: its carrier id, `stat` and `err`, and the keys the id may match (domain/carrierIds.ts). */
export interface SegmentReceipt {
  segmentId: string;
  stat: string;
  err: string | null;
  keys: string[];
}

/** A segment of a message a batch of receipts touched; `receiptId`: the id of the receipt recorded on it now. */
export interface TouchedSegment extends SegmentRow {
  receiptId: string | null;
}

/**
 * Records receipts, each on the most recently sent segment whose id it matches (SMSCs reuse ids; the same id
 * first, then any of its keys: another case, leading zeros, hex for decimal), in one statement, and returns
 * every segment of the messages they touched, with the receipts recorded, ordered by message and seq. A
 * one-part message's only segment is the message itself (its carrier id on its row, migration 069). A
 * receipt that matches no segment touches nothing; of two receipts matching one segment, the first counts.
 * Only a segment of a multipart message is written: its message's status waits for its siblings' receipts,
 * read from the rows. A message of one segment takes its status from the receipt itself, so its segment row
 * stays as the submit wrote it (a row write per message saved; nothing reads `stat` but this statement).
 */
export async function recordSegmentReceipts(db: Knex, receipts: SegmentReceipt[]): Promise<TouchedSegment[]> {
  if (receipts.length === 0) return [];
  return runPrepared<TouchedSegment, ReceiptColumns>(db, RECORD_SEGMENT_RECEIPTS, {
    segmentIds: receipts.map((r) => r.segmentId),
    stats: receipts.map((r) => r.stat),
    errs: receipts.map((r) => r.err),
    // Each receipt's keys in one element, split in SQL: ids are printable, so the unit separator is in none.
    keyLists: receipts.map((r) => r.keys.join(KEY_SEPARATOR)),
  });
}

// The UPDATE's rows are not visible to the SELECT of the same statement: the segments it changed are read
// from its RETURNING instead.
const KEY_SEPARATOR = "\x1f";

interface ReceiptColumns {
  segmentIds: string[];
  stats: string[];
  errs: (string | null)[];
  keyLists: string[];
}

// A receipt's candidates: the segments of multipart messages (smpp_segments, and one-part messages sent
// before migration 069) and the one-part messages holding their carrier id themselves (any message with no
// segment row). The most recent send wins (SMSCs reuse ids), the same id before any of its keys.
const RECORD_SEGMENT_RECEIPTS = prepared(
  "record_segment_receipts_v4",
  (v: ReceiptColumns) =>
    sql`WITH r AS (
           SELECT r.*, string_to_array(r.keys, chr(31)) AS key_list
             FROM unnest(${v.segmentIds}::text[], ${v.stats}::text[], ${v.errs}::text[], ${v.keyLists}::text[])
                    WITH ORDINALITY AS r(receipt_id, stat, err, keys, ord)
         ), matched AS (
           SELECT r.ord, r.receipt_id, r.stat, r.err, t.segment_row, t.message_id, t.total
             FROM r CROSS JOIN LATERAL (
               SELECT * FROM (
                 SELECT s.id AS segment_row, s.message_id, s.total, s.segment_id = r.receipt_id AS exact, m.sent_at
                   FROM smpp_segments s LEFT JOIN messages m ON m.id = s.message_id
                  WHERE s.segment_key = ANY(r.key_list)
                 UNION ALL
                 SELECT NULL::bigint, m.id, 1, m.provider_message_id = r.receipt_id, m.sent_at
                   FROM messages m
                  WHERE carrier_id_key(m.provider_message_id) = ANY(r.key_list)
                    AND NOT EXISTS (SELECT 1 FROM smpp_segments s WHERE s.message_id = m.id)
               ) c ORDER BY c.exact DESC, c.sent_at DESC NULLS LAST, c.segment_row DESC NULLS LAST
               LIMIT 1) t
         ), target AS (
           SELECT DISTINCT ON (m.message_id, m.segment_row) * FROM matched m ORDER BY m.message_id, m.segment_row, m.ord
         ), changed AS (
           UPDATE smpp_segments s SET stat = target.stat, err = target.err
             FROM target WHERE s.id = target.segment_row AND target.total > 1
           RETURNING s.id, s.message_id, s.stat, s.err, target.receipt_id
         )
         SELECT "segmentId", "messageId", "providerMessageId", seq, total, stat, err, "receiptId" FROM (
           SELECT s.segment_id AS "segmentId", s.message_id AS "messageId", s.provider_message_id AS "providerMessageId",
                  s.seq, s.total, COALESCE(c.stat, s.stat) AS stat, CASE WHEN c.id IS NULL THEN s.err ELSE c.err END AS err,
                  c.receipt_id AS "receiptId"
             FROM smpp_segments s LEFT JOIN changed c ON c.id = s.id
            WHERE s.message_id IN (SELECT message_id FROM changed)
           UNION ALL
           SELECT s.segment_id, s.message_id, s.provider_message_id, s.seq, s.total, target.stat, target.err, target.receipt_id
             FROM target JOIN smpp_segments s ON s.id = target.segment_row
            WHERE target.total = 1
           UNION ALL
           SELECT m.provider_message_id, m.id, m.provider_message_id, 1, 1, target.stat, target.err, target.receipt_id
             FROM target JOIN messages m ON m.id = target.message_id
            WHERE target.segment_row IS NULL
         ) touched
         ORDER BY "messageId", seq`,
);
