import type { Knex } from "knex";
import { queryPrepared, type Statement } from "./prepared.js";

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
  await queryPrepared(db, INSERT_SEGMENTS, {
    segmentIds: rows.map((r) => r.id),
    messageIds: rows.map((r) => r.messageId),
    providerMessageIds: rows.map((r) => r.first),
    seqs: rows.map((r) => r.seq),
    totals: rows.map((r) => r.total),
  });
}

const INSERT_SEGMENTS: Statement = {
  name: "insert_smpp_segments",
  text: `INSERT INTO smpp_segments (segment_id, message_id, provider_message_id, seq, total)
         SELECT * FROM unnest(:segmentIds::text[], :messageIds::uuid[], :providerMessageIds::text[], :seqs::int[], :totals::int[])`,
};

/** A segment's receipt: its carrier id, `stat` and `err`. */
export interface SegmentReceipt {
  segmentId: string;
  stat: string;
  err: string | null;
}

/**
 * Records receipts, each on the most recent segment with its id (SMSCs reuse ids), in one statement, and returns
 * every segment of the messages they touched, with the receipts recorded, ordered by message and seq. A receipt
 * of an unknown id touches nothing. The ids must be distinct (the caller keeps one receipt per segment).
 */
export async function recordSegmentReceipts(db: Knex, receipts: SegmentReceipt[]): Promise<SegmentRow[]> {
  if (receipts.length === 0) return [];
  return queryPrepared<SegmentRow>(db, RECORD_SEGMENT_RECEIPTS, {
    segmentIds: receipts.map((r) => r.segmentId),
    stats: receipts.map((r) => r.stat),
    errs: receipts.map((r) => r.err),
  });
}

// The UPDATE's rows are not visible to the SELECT of the same statement: the segments it changed are read
// from its RETURNING instead.
const RECORD_SEGMENT_RECEIPTS: Statement = {
  name: "record_segment_receipts",
  text: `WITH r AS (
           SELECT r.stat, r.err, (SELECT s.id FROM smpp_segments s WHERE s.segment_id = r.segment_id ORDER BY s.id DESC LIMIT 1) AS id
             FROM unnest(:segmentIds::text[], :stats::text[], :errs::text[]) AS r(segment_id, stat, err)
         ), changed AS (
           UPDATE smpp_segments s SET stat = r.stat, err = r.err FROM r WHERE s.id = r.id
           RETURNING s.id, s.message_id, s.stat, s.err
         )
         SELECT s.segment_id AS "segmentId", s.message_id AS "messageId", s.provider_message_id AS "providerMessageId",
                s.seq, s.total, COALESCE(c.stat, s.stat) AS stat, CASE WHEN c.id IS NULL THEN s.err ELSE c.err END AS err
           FROM smpp_segments s LEFT JOIN changed c ON c.id = s.id
          WHERE s.message_id IN (SELECT message_id FROM changed)
          ORDER BY s.message_id, s.seq`,
};
