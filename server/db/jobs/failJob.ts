import type { Knex } from "knex";
import { JOBS_CHANNEL, wakeUpPayload } from "./wakeUp.js";
import { run, sql } from "../sql.js";
import { HIGH_PRIORITY, TIMED_PRIORITY } from "./priorities.js";

/**
 * Records a failed attempt: the job runs again at `retryAt`, or, with no attempts left (or `retryAt` null),
 * it is discarded. Like completion, only by the worker that still holds it.
 */
export async function failJob(db: Knex, workerId: string, id: string, error: string, retryAt: Date | null): Promise<void> {
  await run(
    db,
    sql`UPDATE jobs
           SET state = CASE WHEN ${retryAt}::timestamptz IS NULL OR attempt >= max_attempts THEN 'discarded' ELSE 'retryable' END,
               finalized_at = CASE WHEN ${retryAt}::timestamptz IS NULL OR attempt >= max_attempts THEN now() END,
               run_at = COALESCE(${retryAt}::timestamptz, run_at),
               errors = errors || jsonb_build_array(jsonb_build_object('at', now(), 'attempt', attempt, 'error', ${error.slice(0, 2000)}::text)),
               locked_by = NULL, locked_until = NULL
         WHERE id = ${id} AND state = 'running' AND locked_by = ${workerId}`,
  );
}

/**
 * Puts jobs back to run at their `runAt` without counting the attempt (the job chose to wait, it did not
 * fail), in one statement: receipts over their webhook's cap are snoozed by the dozen (jobs/completer.ts).
 * A job snoozed with a `connectorId` is handed to the workers holding that connector (claim_jobs_v6).
 * Jobs marked `wake` (due shortly, to start on time) become timed jobs, as with rescheduleJobs (TIMED_PRIORITY:
 * claimed first once due); a timed job snoozed without `wake` goes back to HIGH_PRIORITY, and wake the workers for the earliest of them, at commit.
 *
 * A job made due while it ran (its run_at moved past the one it was claimed with: makeHeldSendsDue
 * asks a send job being judged to be judged again) is not put off: it keeps that earlier time, and the
 * workers are woken for it now. Without this, a settings change committed between the policy's read and the
 * snooze was lost until the old hold ended. run_at is compared at the millisecond, the precision `claimedRunAt`
 * came back to JavaScript with.
 */
export async function snoozeJobs(
  db: Knex,
  workerId: string,
  jobs: { id: string; runAt: Date; claimedRunAt: Date; wake?: boolean; connectorId?: string | null }[],
): Promise<void> {
  if (jobs.length === 0) return;
  const woken = jobs.filter((j) => j.wake).map((j) => j.runAt.getTime());
  const payload = woken.length > 0 ? wakeUpPayload(new Date(Math.min(...woken))) : undefined;
  await run(
    db,
    sql`WITH s AS (
          UPDATE jobs j
             SET state = 'available', attempt = j.attempt - 1, locked_by = NULL, locked_until = NULL,
                 run_at = CASE WHEN date_trunc('milliseconds', j.run_at) > s.claimed_run_at THEN LEAST(j.run_at, s.run_at)
                               ELSE s.run_at END,
                 priority = CASE WHEN s.wake THEN ${TIMED_PRIORITY}::smallint WHEN j.priority = ${TIMED_PRIORITY} THEN ${HIGH_PRIORITY}::smallint ELSE j.priority END,
                 connector_id = s.connector_id
            FROM unnest(${jobs.map((j) => j.id)}::uuid[], ${jobs.map((j) => j.runAt.toISOString())}::timestamptz[],
                        ${jobs.map((j) => j.claimedRunAt.toISOString())}::timestamptz[], ${jobs.map((j) => j.wake === true)}::boolean[],
                        ${jobs.map((j) => j.connectorId ?? null)}::uuid[])
              AS s(id, run_at, claimed_run_at, wake, connector_id)
           WHERE j.id = s.id AND j.state = 'running' AND j.locked_by = ${workerId}
          RETURNING j.run_at < s.run_at AS made_due
        )
        SELECT CASE WHEN EXISTS (SELECT 1 FROM s WHERE made_due) THEN pg_notify(${JOBS_CHANNEL}, '')
                    WHEN ${payload !== undefined} AND EXISTS (SELECT 1 FROM s) THEN pg_notify(${JOBS_CHANNEL}, ${payload ?? ""}) END`,
  );
}
