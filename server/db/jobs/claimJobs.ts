import type { Knex } from "knex";
import type { JobRow } from "./types.js";

/**
 * Claims up to `limit` due jobs for `workerId` with a lease of `leaseMs`. SKIP LOCKED lets any number of
 * workers claim concurrently without waiting on each other or claiming the same job; the inner SELECT walks
 * jobs_claim_idx (run_at, id) WHERE state IN ('available','retryable'), whose predicate matches this one.
 */
export async function claimJobs(db: Knex, workerId: string, limit: number, leaseMs: number): Promise<JobRow[]> {
  const { rows } = await db.raw(
    `WITH due AS (
       SELECT id FROM jobs
       WHERE state IN ('available', 'retryable') AND run_at <= now()
       ORDER BY run_at, id
       LIMIT ?
       FOR UPDATE SKIP LOCKED
     )
     UPDATE jobs j
        SET state = 'running', attempt = j.attempt + 1, locked_by = ?, locked_until = now() + make_interval(secs => ?)
       FROM due WHERE j.id = due.id
     RETURNING j.id, j.kind, j.payload, j.attempt, j.max_attempts AS "maxAttempts", j.run_at AS "runAt", j.created_at AS "createdAt"`,
    [limit, workerId, leaseMs / 1000],
  );
  return rows as JobRow[];
}
