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
 */
export async function releaseQuietHoursHolds(db: Knex, accountId: string): Promise<number> {
  const { rows } = await db.raw(
    `WITH j AS (
       UPDATE jobs SET run_at = now()
        WHERE account_id = ? AND id IN (SELECT job_id FROM messages
                      WHERE account_id = ? AND status = 'scheduled' AND deferred_until IS NOT NULL)
          AND state IN ('available', 'retryable') AND run_at > now()
       RETURNING id
     )
     SELECT (SELECT count(*)::int FROM j) AS n, ${notifyWhenSql("EXISTS (SELECT 1 FROM j)")} AS notified`,
    [accountId, accountId],
  );
  return rows[0].n as number;
}
