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

/** Puts a job back to run at `runAt` without counting the attempt (the job chose to wait, it did not fail). */
export async function snoozeJob(db: Knex, workerId: string, id: string, runAt: Date): Promise<void> {
  await db("jobs")
    .where({ id, state: "running", locked_by: workerId })
    .update({ state: "available", attempt: db.raw("attempt - 1"), run_at: runAt, locked_by: null, locked_until: null });
}
