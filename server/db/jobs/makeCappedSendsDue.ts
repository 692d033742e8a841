import type { Knex } from "knex";
import { pendingSql } from "../messages/statusIndexes.js";
import { run, sql } from "../sql.js";
import { notifyWhenSql, wakeUpPayload } from "./wakeUp.js";

/**
 * Makes the send jobs of messages waiting for a connector (scheduled, routed to it before: at its cap, or for
 * it to be bound) due at `at`, waking the workers then: its cap changed, and turns at the old rate would keep
 * them asleep past slots the new one has (the caller forgets those turns too). `at` is when every worker has applied the change (its next look at the connectors). Reads the
 * scheduled and sending messages of every account (messages_pending_page_idx); caps change rarely. Returns
 * how many jobs were made due.
 *
 * The running send jobs of messages routed to it are made due at `at` too: a worker may be judging them by the
 * old cap, and their snooze keeps the earlier time (snoozeJobs). Running jobs are few (jobs_lease_idx).
 */
export async function makeCappedSendsDue(db: Knex, connectorId: string, at: Date): Promise<number> {
  const { rows } = await run<{ n: number }>(
    db,
    sql`WITH waiting AS (
          UPDATE jobs SET run_at = ${at}
           WHERE id IN (SELECT job_id FROM messages
                         WHERE status = 'scheduled' AND ${pendingSql("")} AND connector_id = ${connectorId}::uuid)
             AND state IN ('available', 'retryable') AND run_at > ${at}
          RETURNING id
        ), judged AS (
          UPDATE jobs j SET run_at = ${at}
           WHERE j.state = 'running' AND j.kind = 'send_message'
             AND EXISTS (SELECT FROM messages m WHERE m.id = (j.payload->>'messageId')::uuid AND m.connector_id = ${connectorId}::uuid)
          RETURNING j.id
        )
        SELECT (SELECT count(*)::int FROM waiting) AS n, ${notifyWhenSql(sql`EXISTS (SELECT 1 FROM waiting)`, sql`${wakeUpPayload(at) ?? ""}`)} AS notified`,
  );
  return rows[0]!.n;
}
