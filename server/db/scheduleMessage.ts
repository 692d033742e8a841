import type { Knex } from "knex";
import type { NewMessage } from "./messages.js";
import { JOBS_CHANNEL, NOTIFY_HORIZON_MS } from "./jobs/index.js";
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
           INSERT INTO jobs (id, kind, payload, run_at, max_attempts)
           VALUES ($2, $3, jsonb_build_object('messageId', $1::uuid), $8, $11)
         ), message AS (
           INSERT INTO messages (id, account_id, job_id, recipient, sender, body, scheduled_at, segments, encoding)
           VALUES ($1, $12, $2, $4, $5, $6, $8, $9, $10)
         )
         SELECT pg_notify('${JOBS_CHANNEL}', $7) WHERE $7 <> ''`,
};

export async function scheduleMessage(
  db: Knex,
  accountId: string,
  m: NewMessage & { jobKind: string; maxAttempts: number },
): Promise<void> {
  const notify = m.scheduledAt.getTime() - Date.now() < NOTIFY_HORIZON_MS ? String(m.scheduledAt.getTime()) : "";
  await queryPrepared(db, scheduleMessageStatement, [
    m.id, m.jobId, m.jobKind, m.to, m.from, m.body, notify, m.scheduledAt, m.segments, m.encoding, m.maxAttempts, accountId,
  ]);
}
