import type { Knex } from "knex";
import { prepared, runPrepared } from "./prepared.js";
import { sql } from "./sql.js";

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
 * Records the carrier's ids of messages' segments, all in one statement; the first id of each message is its
 * providerMessageId.
 */
export async function insertSegments(db: Knex, messages: { messageId: string; segmentIds: string[] }[]): Promise<void> {
  const rows = messages.flatMap((m) =>
    m.segmentIds.map((id, i) => ({ id, messageId: m.messageId, first: m.segmentIds[0]!, seq: i + 1, total: m.segmentIds.length })),
  );
  if (rows.length === 0) return;
  await runPrepared(db, INSERT_SEGMENTS, {
    segmentIds: rows.map((r) => r.id),
    messageIds: rows.map((r) => r.messageId),
    providerMessageIds: rows.map((r) => r.first),
    seqs: rows.map((r) => r.seq),
    totals: rows.map((r) => r.total),
  });
}

interface SegmentColumns {
  segmentIds: string[];
  messageIds: string[];
  providerMessageIds: string[];
  seqs: number[];
  totals: number[];
}

const INSERT_SEGMENTS = prepared(
  "insert_smpp_segments",
  (v: SegmentColumns) =>
    sql`INSERT INTO smpp_segments (segment_id, message_id, provider_message_id, seq, total)
         SELECT * FROM unnest(${v.segmentIds}::text[], ${v.messageIds}::uuid[], ${v.providerMessageIds}::text[], ${v.seqs}::int[], ${v.totals}::int[])`,
);

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
 * Records receipts, each on the most recent segment whose id it matches (SMSCs reuse ids; the same id first,
 * then any of its keys: another case, leading zeros, hex for decimal), in one statement, and returns every
 * segment of the messages they touched, with the receipts recorded, ordered by message and seq. A receipt
 * that matches no segment touches nothing; of two receipts matching one segment, the first counts.
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

const RECORD_SEGMENT_RECEIPTS = prepared(
  "record_segment_receipts_v3",
  (v: ReceiptColumns) =>
    sql`WITH r AS (
           SELECT * FROM unnest(${v.segmentIds}::text[], ${v.stats}::text[], ${v.errs}::text[], ${v.keyLists}::text[])
                    WITH ORDINALITY AS r(receipt_id, stat, err, keys, ord)
         ), target AS (
           SELECT DISTINCT ON (t.id) t.id, t.total, r.receipt_id, r.stat, r.err
             FROM r CROSS JOIN LATERAL (
               SELECT s.id, s.total FROM smpp_segments s
                WHERE s.segment_key = ANY(string_to_array(r.keys, chr(31)))
                ORDER BY s.segment_id = r.receipt_id DESC, s.id DESC
                LIMIT 1) t
            ORDER BY t.id, r.ord
         ), changed AS (
           UPDATE smpp_segments s SET stat = target.stat, err = target.err
             FROM target WHERE s.id = target.id AND target.total > 1
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
             FROM target JOIN smpp_segments s ON s.id = target.id
            WHERE target.total = 1
         ) touched
         ORDER BY "messageId", seq`,
);
