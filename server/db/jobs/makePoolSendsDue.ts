import type { Knex } from "knex";
import { pendingSql } from "../messages/statusIndexes.js";
import { run, sql } from "../sql.js";
import { notifyWhenSql, wakeUpPayload } from "./wakeUp.js";

/**
 * Makes the send jobs of an account's messages waiting for a sender of a pool (scheduled, due, their job
 * snoozed to a turn at a sender's cap) due at `at`, waking the workers then: the pool's cap changed, and turns
 * at the old rate would keep them asleep past slots the new one has (the caller forgets those turns too).
 *
 * A message of the pool that waits for its time (scheduled later), for quiet hours (deferred_until) or in the
 * throughput queue (a throttled_sends row) is left asleep; any other that is due with its job asleep waits
 * for something its next look judges again (its sender, its connector, its account reinstated), so waking it
 * costs that look only. Reads the account's scheduled messages (messages_pending_page_idx); caps change rarely.
 * Returns how many jobs were made due.
 *
 * The running send jobs of the pool's messages are made due at `at` too: a worker may be judging them by the
 * old cap, and their snooze keeps the earlier time (snoozeJobs).
 */
export async function makePoolSendsDue(db: Knex, accountId: string, senderPoolId: string, at: Date): Promise<number> {
  const { rows } = await run<{ n: number }>(
    db,
    // Locked in id order first, as every statement that writes many jobs does: two cannot deadlock.
    sql`WITH locked AS (
          SELECT j.id FROM jobs j
           WHERE j.id IN (SELECT m.job_id FROM messages m
                           WHERE m.account_id = ${accountId}::uuid AND m.status = 'scheduled' AND ${pendingSql("m")}
                             AND m.sender_pool_id = ${senderPoolId}::uuid
                             AND coalesce(m.scheduled_at, m.created_at) <= now() AND m.deferred_until IS NULL
                             AND NOT EXISTS (SELECT FROM throttled_sends t WHERE t.message_id = m.id))
             AND j.state IN ('available', 'retryable') AND j.run_at > ${at}
           ORDER BY j.id FOR UPDATE
        ), waiting AS (
          UPDATE jobs j SET run_at = ${at} FROM locked WHERE j.id = locked.id RETURNING j.id
        ), judged AS (
          UPDATE jobs j SET run_at = ${at}
           WHERE j.state = 'running' AND j.kind = 'send_message' AND j.account_id = ${accountId}::uuid
             AND EXISTS (SELECT FROM messages m WHERE m.id = (j.payload->>'messageId')::uuid AND m.sender_pool_id = ${senderPoolId}::uuid)
          RETURNING j.id
        )
        SELECT (SELECT count(*)::int FROM waiting) AS n, ${notifyWhenSql(sql`EXISTS (SELECT 1 FROM waiting)`, sql`${wakeUpPayload(at) ?? ""}`)} AS notified`,
  );
  return rows[0]!.n;
}
