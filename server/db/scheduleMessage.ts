import type { Knex } from "knex";
import type { NewMessage } from "./messages/index.js";
import { insertJobsSql, notifyWhenSql, wakeUpPayload } from "./jobs/index.js";
import { queryPrepared } from "./prepared.js";
import { jobPrioritySql, SCHEDULE_DEFAULTS } from "../domain/sendingPolicy.js";

/**
 * POST /scheduler/schedule in ONE statement: the opt-out check, the send job, the message (its "scheduled"
 * history entry is the row's created_at, not stored), and the workers' wake-up when it is due within the
 * notify horizon. One statement is atomic on its own, so without an Idempotency-Key no BEGIN/COMMIT round trips
 * are needed (the previous version took five round trips: BEGIN, three INSERTs, COMMIT). The opt-out check is
 * a CTE here, not a query of its own: as a separate round trip it held the sustained-load test under its rate.
 * A recipient on the account's opt-out list gets nothing inserted and `optedOut: true`.
 */
export const scheduleMessageStatement = {
  name: "schedule_message",
  text: `WITH allowed AS (
           SELECT WHERE NOT EXISTS (SELECT FROM opt_outs WHERE account_id = $10::uuid AND phone = $3::text)
         ), job AS (
           ${insertJobsSql("send_message", { id: "$2::uuid", accountId: "$10::uuid", payload: "jsonb_build_object('messageId', $1::uuid)", runAt: "$7::timestamptz", priority: jobPrioritySql("$13::text"), from: "allowed" })}
         ), message AS (
           INSERT INTO messages (id, account_id, job_id, recipient, sender, body, scheduled_at, segments, encoding, valid_until, category, priority)
           SELECT $1, $10, $2, $3, $4, $5, $7, $8, $9, $11::timestamptz, $12, $13 FROM allowed
         )
         SELECT NOT EXISTS (SELECT FROM allowed) AS "optedOut", ${notifyWhenSql("$6 <> '' AND EXISTS (SELECT FROM allowed)", "$6")}`,
};

/** Stores the message and its job; false (nothing stored) when the recipient is on the account's opt-out list. */
export async function scheduleMessage(db: Knex, accountId: string, m: NewMessage): Promise<boolean> {
  const [row] = await queryPrepared<{ optedOut: boolean }>(db, scheduleMessageStatement, [
    m.id,
    m.jobId,
    m.to,
    m.from,
    m.body,
    wakeUpPayload(m.scheduledAt) ?? "",
    m.scheduledAt,
    m.segments,
    m.encoding,
    accountId,
    m.validUntil ?? null,
    m.category ?? SCHEDULE_DEFAULTS.category,
    m.priority ?? SCHEDULE_DEFAULTS.priority,
  ]);
  return !row!.optedOut;
}
