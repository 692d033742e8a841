import type { Knex } from "knex";
import type { NewMessage } from "./rows.js";
import { insertJobsSql, notifyWhenSql, wakeUpPayload } from "../jobs/index.js";
import { countStoredEventsSql, STORED_COUNTED_COLUMNS } from "../messageCounts.js";
import { queryPrepared } from "../prepared.js";
import { sql } from "../sql.js";
import { countryOf } from "../../domain/phone.js";
import { jobPrioritySql, SCHEDULE_DEFAULTS } from "../../domain/sendingPolicy.js";

/**
 * POST /scheduler/schedule in ONE statement: the opt-out check, the send job, the message (its "scheduled"
 * history entry is the row's created_at, not stored), its count for reports, and the workers' wake-up when it is due within the
 * notify horizon. One statement is atomic on its own, so without an Idempotency-Key no BEGIN/COMMIT round trips
 * are needed (the previous version took five round trips: BEGIN, three INSERTs, COMMIT). The opt-out check is
 * a CTE here, not a query of its own: as a separate round trip it held the sustained-load test under its rate.
 * A recipient on the account's opt-out list gets nothing inserted and `optedOut: true`; so does an E.164 sender
 * the account does not hold (`senderNotHeld: true`), checked in the same statement for the same reason.
 */
export const insertScheduledMessageStatement = {
  name: "schedule_message",
  text: `WITH held AS (
           SELECT WHERE left(:from::text, 1) <> '+'
                     OR EXISTS (SELECT FROM numbers WHERE phone_number = :from::text AND account_id = :accountId::uuid)
         ), allowed AS (
           SELECT FROM held WHERE NOT EXISTS (SELECT FROM opt_outs WHERE account_id = :accountId::uuid AND phone = :to::text)
         ), job AS (
           ${sql.text(insertJobsSql("send_message", { id: ":jobId::uuid", accountId: ":accountId::uuid", payload: "CASE WHEN :test::boolean THEN jsonb_build_object('messageId', :id::uuid, 'test', true) ELSE jsonb_build_object('messageId', :id::uuid) END", runAt: ":scheduledAt::timestamptz", priority: jobPrioritySql(":priority::text"), from: "allowed" }))}
         ), message AS (
           INSERT INTO messages (id, account_id, job_id, recipient, sender, body, scheduled_at, segments, encoding, valid_until, category, priority, test,
                                 reference, metadata, sent_body, sender_pool_id, country)
           SELECT :id::uuid, :accountId::uuid, :jobId::uuid, :to::text, :from::text, :body::text, :scheduledAt::timestamptz,
                  :segments::int, :encoding::text, :validUntil::timestamptz, :category::text, :priority::text, :test::boolean,
                  :reference::text, :metadata::jsonb, :sentBody::text, :senderPoolId::uuid, :country::text
             FROM allowed
           RETURNING ${STORED_COUNTED_COLUMNS}
         ), counted AS (
           ${sql.text(countStoredEventsSql("message"))}
         )
         SELECT NOT EXISTS (SELECT FROM held) AS "senderNotHeld", NOT EXISTS (SELECT FROM allowed) AS "optedOut",
                ${notifyWhenSql(":wakeUp::text <> '' AND EXISTS (SELECT FROM allowed)", ":wakeUp::text")}`,
};

/** The statement's named values for a message (bench:api's baseline sends the same statement with them). */
export function scheduleMessageBindings(accountId: string, m: NewMessage): Record<string, unknown> {
  return {
    id: m.id,
    jobId: m.jobId,
    to: m.to,
    from: m.from,
    body: m.body,
    wakeUp: wakeUpPayload(m.scheduledAt) ?? "",
    scheduledAt: m.scheduledAt,
    segments: m.segments,
    encoding: m.encoding,
    accountId,
    validUntil: m.validUntil ?? null,
    category: m.category ?? SCHEDULE_DEFAULTS.category,
    priority: m.priority ?? SCHEDULE_DEFAULTS.priority,
    test: m.test ?? false,
    reference: m.reference ?? null,
    metadata: m.metadata ? JSON.stringify(m.metadata) : null,
    sentBody: m.sentBody ?? null,
    senderPoolId: m.senderPoolId ?? null,
    country: countryOf(m.to),
  };
}

/**
 * Stores the message and its job; nothing is stored, and the answer says why, when the account does not hold
 * its E.164 sender or its recipient is on the account's opt-out list.
 */
export async function insertScheduledMessage(
  db: Knex,
  accountId: string,
  m: NewMessage,
): Promise<"stored" | "sender_not_held" | "opted_out"> {
  const [row] = await queryPrepared<{ senderNotHeld: boolean; optedOut: boolean }>(
    db,
    insertScheduledMessageStatement,
    scheduleMessageBindings(accountId, m),
  );
  return row!.senderNotHeld ? "sender_not_held" : row!.optedOut ? "opted_out" : "stored";
}
