import type { Knex } from "knex";

/**
 * Records a failed attempt: the job runs again at `retryAt`, or, with no attempts left (or `retryAt` null),
 * it is discarded. Like completion, only by the worker that still holds it.
 */
export async function failJob(db: Knex, workerId: string, id: string, error: string, retryAt: Date | null): Promise<void> {
  await db.raw(
    `UPDATE jobs
        SET state = CASE WHEN ?::timestamptz IS NULL OR attempt >= max_attempts THEN 'discarded' ELSE 'retryable' END,
            finalized_at = CASE WHEN ?::timestamptz IS NULL OR attempt >= max_attempts THEN now() END,
            run_at = COALESCE(?::timestamptz, run_at),
            errors = errors || jsonb_build_array(jsonb_build_object('at', now(), 'attempt', attempt, 'error', ?::text)),
            locked_by = NULL, locked_until = NULL
      WHERE id = ? AND state = 'running' AND locked_by = ?`,
    [retryAt, retryAt, retryAt, error.slice(0, 2000), id, workerId],
  );
}

/**
 * Puts jobs back to run at their `runAt` without counting the attempt (the job chose to wait, it did not
 * fail), in one statement: receipts over their webhook's cap are snoozed by the dozen (jobs/completer.ts).
 */
export async function snoozeJobs(db: Knex, workerId: string, jobs: { id: string; runAt: Date }[]): Promise<void> {
  if (jobs.length === 0) return;
  await db.raw(
    `UPDATE jobs j
        SET state = 'available', attempt = j.attempt - 1, run_at = s.run_at, locked_by = NULL, locked_until = NULL
       FROM unnest(?::uuid[], ?::timestamptz[]) AS s(id, run_at)
      WHERE j.id = s.id AND j.state = 'running' AND j.locked_by = ?`,
    [jobs.map((j) => j.id), jobs.map((j) => j.runAt.toISOString()), workerId],
  );
}
