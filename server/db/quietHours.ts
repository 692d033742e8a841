// messages.deferred_until, the mark of a marketing message held by quiet hours (services/quietHours.ts): set
// while it is held, cleared when it is judged open again or claimed for sending (claimMessagesForSending).
import type { Knex } from "knex";
import { notifyWhenSql } from "./jobs/index.js";

/**
 * Sets each message's deferred_until (null: no longer held) in ONE statement, for those still `scheduled`:
 * a message cancelled meanwhile keeps none.
 */
export async function setDeferredUntil(db: Knex, marks: { id: string; accountId: string; until: Date | null }[]): Promise<void> {
  if (marks.length === 0) return;
  await db.raw(
    `UPDATE messages m SET deferred_until = d.until
       FROM unnest(?::uuid[], ?::uuid[], ?::timestamptz[]) AS d(id, account_id, until)
      WHERE m.id = ANY(?::uuid[]) AND m.account_id = d.account_id AND m.id = d.id AND m.status = 'scheduled'`,
    [marks.map((m) => m.id), marks.map((m) => m.accountId), marks.map((m) => m.until?.toISOString() ?? null), marks.map((m) => m.id)],
  );
}

/**
 * Makes the send jobs of the account's messages held by quiet hours due now, waking the workers: they are
 * judged again (by new settings). deferred_until stays until then. Returns how many jobs were made due.
 * Reads the account's scheduled messages (messages_status_page_idx); settings change rarely.
 *
 * The account's send jobs running now are made due too: a worker may be judging their messages by the old
 * settings, read before this commit, and hold them after it. Their snooze keeps this earlier time and wakes
 * the workers (snoozeJobs), so they are judged again; a job that sends or fails its message ends, and the time
 * is moot. Running jobs are few (jobs_lease_idx).
 */
export async function releaseQuietHoursHolds(db: Knex, accountId: string): Promise<number> {
  const { rows } = await db.raw(
    `WITH held AS (
       UPDATE jobs SET run_at = now()
        WHERE account_id = ? AND id IN (SELECT job_id FROM messages
                      WHERE account_id = ? AND status = 'scheduled' AND deferred_until IS NOT NULL)
          AND state IN ('available', 'retryable') AND run_at > now()
       RETURNING id
     ), judged AS (
       UPDATE jobs SET run_at = now()
        WHERE state = 'running' AND kind = 'send_message' AND account_id = ?
       RETURNING id
     )
     SELECT (SELECT count(*)::int FROM held) AS n, ${notifyWhenSql("EXISTS (SELECT 1 FROM held)")} AS notified`,
    [accountId, accountId, accountId],
  );
  return rows[0].n as number;
}
