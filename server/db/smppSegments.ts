import type { Knex } from "knex";

export interface SegmentRow {
  segmentId: string;
  messageId: string;
  providerMessageId: string;
  seq: number;
  total: number;
  stat: string | null;
  err: string | null;
}

/** Records the carrier's ids of a message's segments; the first is the message's providerMessageId. */
export async function insertSegments(db: Knex, messageId: string, segmentIds: string[]): Promise<void> {
  await db("smpp_segments").insert(
    segmentIds.map((id, i) => ({
      segment_id: id,
      message_id: messageId,
      provider_message_id: segmentIds[0],
      seq: i + 1,
      total: segmentIds.length,
    })),
  );
}

/**
 * Records a segment's receipt on the most recent segment with that id (SMSCs reuse ids) and returns every
 * segment of its message, or undefined for an unknown id.
 */
export async function recordSegmentReceipt(
  db: Knex,
  segmentId: string,
  stat: string,
  err: string | null,
): Promise<SegmentRow[] | undefined> {
  const latest = db("smpp_segments").where({ segment_id: segmentId }).orderBy("id", "desc").limit(1).select("id");
  const updated = await db("smpp_segments").where("id", latest).update({ stat, err }).returning("message_id");
  if (updated.length === 0) return undefined;
  return db("smpp_segments").where({ message_id: updated[0].message_id }).orderBy("seq").select({
    segmentId: "segment_id",
    messageId: "message_id",
    providerMessageId: "provider_message_id",
    seq: "seq",
    total: "total",
    stat: "stat",
    err: "err",
  });
}
