import type { Knex } from "knex";
import { pendingSql } from "../messages/statusIndexes.js";
import { run, sql } from "../sql.js";
import { notifyWhenSql } from "./wakeUp.js";

/**
 * Makes the send jobs of the account's messages held by quiet hours (messages.deferred_until) due now, waking
 * the workers: they are judged again by new settings. deferred_until stays until then. Returns how many jobs
 * were made due. Reads the account's scheduled messages (messages_pending_page_idx); settings change rarely.
 *
 * The account's send jobs running now are made due too: a worker may be judging their messages by the old
 * settings, read before this commit, and hold them after it. Their snooze keeps this earlier time and wakes
 * the workers (snoozeJobs), so they are judged again; a job that sends or fails its message ends, and the time
 * is moot. Running jobs are few (jobs_lease_idx).
 */
export async function makeHeldSendsDue(db: Knex, accountId: string): Promise<number> {
  const { rows } = await run<{ n: number }>(
    db,
    sql`WITH held AS (
          UPDATE jobs SET run_at = now()
           WHERE account_id = ${accountId}
             AND id IN (SELECT job_id FROM messages
                         WHERE account_id = ${accountId} AND status = 'scheduled' AND ${pendingSql("")} AND deferred_until IS NOT NULL)
             AND state IN ('available', 'retryable') AND run_at > now()
          RETURNING id
        ), judged AS (
          UPDATE jobs SET run_at = now()
           WHERE state = 'running' AND kind = 'send_message' AND account_id = ${accountId}
          RETURNING id
        )
        SELECT (SELECT count(*)::int FROM held) AS n, ${notifyWhenSql(sql`EXISTS (SELECT 1 FROM held)`)} AS notified`,
  );
  return rows[0]!.n;
}
