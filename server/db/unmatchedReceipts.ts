// Receipts whose provider id matched no message: the submit's answer was lost (the worker died or the link
// dropped while the message was on the wire). Kept for a bounded time and matched to a message of unknown
// outcome on the same link by destination, submit minute and text prefix.
import type { Knex } from "knex";
import { insertJobs, type NewJob } from "./jobs/insertJobs.js";
import { run, sql } from "./sql.js";

/** What a receipt says besides its id, used to match it when the id is unknown (the submit's answer was lost). */
export interface ReceiptFacts {
  link: string;
  providerMessageId: string;
  status: "delivered" | "undelivered" | "failed";
  error: { code: string; message: string } | null;
  at: Date;
  /** E.164 with "+", the receipt's source address. */
  destination: string;
  /** The receipt's `submit date`, to the minute (UTC). */
  submittedMinute: Date | null;
  /** The receipt's `text:` field: the first characters of the message. */
  textPrefix: string | null;
  /** The job it came as, applied again if its id becomes known (requeueReceiptsNowKnown). */
  job?: { kind: NewJob["kind"]; payload: NewJob["payload"] };
}

export interface UnmatchedReceipt extends ReceiptFacts {
  id: string;
}

/** Keeps a receipt; a copy of one already kept (same link, destination, id and status) is ignored. */
export async function insertUnmatchedReceipt(db: Knex, r: ReceiptFacts): Promise<void> {
  await db("unmatched_receipts")
    .insert({
      link: r.link,
      provider_message_id: r.providerMessageId,
      status: r.status,
      error_code: r.error?.code ?? null,
      error_message: r.error?.message ?? null,
      destination: r.destination,
      submitted_minute: r.submittedMinute,
      text_prefix: r.textPrefix,
      at: r.at,
      job_kind: r.job?.kind ?? null,
      job_payload: r.job ? JSON.stringify(r.job.payload) : null,
    })
    .onConflict(["link", "destination", "provider_message_id", "status"])
    .ignore();
}

/**
 * Pairs of (receipt, message of unknown outcome) that match each other and nothing else: the destination is
 * the same, the message was submitted within the receipt's submit minute (a minute's slack either side for
 * clocks), its body starts with the receipt's text. A criterion the receipt does not carry is not applied.
 */
export async function findUnambiguousMatches(
  db: Knex,
): Promise<{ receipt: UnmatchedReceipt; messageId: string; accountId: string; submittedAt: Date }[]> {
  const { rows } = await run<Record<string, unknown>>(
    db,
    sql`WITH pairs AS (
       SELECT r.id AS receipt_id, m.id AS message_id, m.account_id, m.submitted_at
       FROM unmatched_receipts r
       JOIN messages m ON m.status = 'sending' AND m.outcome_unknown_at IS NOT NULL
         AND m.submitted_via = r.link AND m.recipient = r.destination
         AND (r.submitted_minute IS NULL OR (m.submitted_at >= r.submitted_minute - interval '1 minute'
                                            AND m.submitted_at < r.submitted_minute + interval '2 minutes'))
         AND (r.text_prefix IS NULL OR starts_with(m.body, r.text_prefix))
     ), unambiguous AS (
       SELECT * FROM pairs p
       WHERE (SELECT count(*) FROM pairs q WHERE q.receipt_id = p.receipt_id) = 1
         AND (SELECT count(*) FROM pairs q WHERE q.message_id = p.message_id) = 1
     )
     SELECT u.message_id AS "messageId", u.account_id AS "accountId", u.submitted_at AS "submittedAt", r.id, r.link,
       r.provider_message_id AS "providerMessageId", r.status, r.error_code, r.error_message, r.destination,
       r.submitted_minute AS "submittedMinute", r.text_prefix AS "textPrefix", r.at
     FROM unambiguous u JOIN unmatched_receipts r ON r.id = u.receipt_id`,
  );
  return rows.map((r) => ({
    messageId: r.messageId as string,
    accountId: r.accountId as string,
    submittedAt: r.submittedAt as Date,
    receipt: {
      id: String(r.id),
      link: r.link as string,
      providerMessageId: r.providerMessageId as string,
      status: r.status as ReceiptFacts["status"],
      error: r.error_code ? { code: r.error_code as string, message: (r.error_message as string) ?? "" } : null,
      destination: r.destination as string,
      submittedMinute: r.submittedMinute as Date | null,
      textPrefix: r.textPrefix as string | null,
      at: r.at as Date,
    },
  }));
}

export async function deleteUnmatchedReceipts(db: Knex, ids: string[]): Promise<void> {
  if (ids.length > 0) await db("unmatched_receipts").whereIn("id", ids).delete();
}

/**
 * Kept receipts whose id a submit has recorded since (an SMPP segment, or a message's provider id) are known
 * receipts after all: each goes back to the queue as the job it came as, and is no longer kept. Returns how many.
 */
export async function requeueReceiptsNowKnown(db: Knex): Promise<number> {
  return db.transaction(async (tx) => {
    const { rows } = await run<{ job_kind: NewJob["kind"]; job_payload: NewJob["payload"] }>(
      tx,
      sql`DELETE FROM unmatched_receipts r
       WHERE r.job_kind IS NOT NULL
         AND (EXISTS (SELECT 1 FROM smpp_segments s WHERE s.segment_id = r.provider_message_id)
              OR EXISTS (SELECT 1 FROM messages m WHERE carrier_id_key(m.provider_message_id) = carrier_id_key(r.provider_message_id)
                                                    AND m.provider_message_id = r.provider_message_id))
       RETURNING r.job_kind, r.job_payload`,
    );
    await insertJobs(
      tx,
      rows.map((r) => ({ kind: r.job_kind, payload: r.job_payload }) as NewJob),
    );
    return rows.length;
  });
}

/** Deletes receipts kept longer than `retentionMs`; returns how many. */
export async function deleteExpiredUnmatchedReceipts(db: Knex, retentionMs: number): Promise<number> {
  return db("unmatched_receipts")
    .where("received_at", "<", sql`now() - make_interval(secs => ${retentionMs / 1000})`.forBuilder(db))
    .delete();
}
