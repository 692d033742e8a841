import type { Knex } from "knex";
import type { NewMessage } from "./messages.js";
import { insertJobsSql, notifyWhenSql, wakeUpPayload } from "./jobs/index.js";
import { queryPrepared } from "./prepared.js";

/**
 * POST /scheduler/schedule in ONE statement: the send job, the message (its "scheduled" history entry is the
 * row's created_at, see migration 006), and the workers' wake-up when it is due within the notify horizon. One
 * statement is atomic on its own, so without an Idempotency-Key no BEGIN/COMMIT round trips are needed (the
 * previous version took five round trips: BEGIN, three INSERTs, COMMIT; against the old one-INSERT baseline
 * bench:api went from 0.13 to 0.30).
 */
export const scheduleMessageStatement = {
  name: "schedule_message",
  text: `WITH job AS (
           ${insertJobsSql("send_message", { id: "$2::uuid", payload: "jsonb_build_object('messageId', $1::uuid)", runAt: "$7::timestamptz" })}
         ), message AS (
           INSERT INTO messages (id, account_id, job_id, recipient, sender, body, scheduled_at, segments, encoding)
           VALUES ($1, $10, $2, $3, $4, $5, $7, $8, $9)
         )
         SELECT ${notifyWhenSql("$6 <> ''", "$6")}`,
};

export async function scheduleMessage(db: Knex, accountId: string, m: NewMessage): Promise<void> {
  await queryPrepared(db, scheduleMessageStatement, [
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
  ]);
}
