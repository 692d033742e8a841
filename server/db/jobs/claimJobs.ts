import type { Knex } from "knex";
import type { JobRow } from "./types.js";

export interface Claim {
  jobs: JobRow[];
  /** Milliseconds (on the database's clock) until the next waiting job is due; null when none waits. */
  nextDueInMs: number | null;
}

/**
 * Claims up to `limit` due jobs for `workerId` with a lease of `leaseMs`, and says when the next job not yet
 * due will be, in the same round trip (the runner arms its timer with it). SKIP LOCKED lets any number of
 * workers claim concurrently without waiting on each other or claiming the same job; the inner SELECT walks
 * jobs_claim_idx (run_at, id) WHERE state IN ('available','retryable'), whose predicate matches this one.
 */
export async function claimJobs(db: Knex, workerId: string, limit: number, leaseMs: number): Promise<Claim> {
  const { rows } = await db.raw(
    `WITH due AS (
       SELECT id FROM jobs
       WHERE state IN ('available', 'retryable') AND run_at <= now()
       ORDER BY run_at, id
       LIMIT ?
       FOR UPDATE SKIP LOCKED
     ), claimed AS (
       UPDATE jobs j
          SET state = 'running', attempt = j.attempt + 1, locked_by = ?, locked_until = now() + make_interval(secs => ?)
         FROM due WHERE j.id = due.id
       RETURNING j.id, j.kind, j.payload, j.attempt, j.max_attempts AS "maxAttempts", j.run_at AS "runAt", j.created_at AS "createdAt"
     )
     SELECT (SELECT coalesce(json_agg(c), '[]') FROM claimed c) AS jobs,
            (SELECT EXTRACT(EPOCH FROM min(run_at) - now()) * 1000 FROM jobs
              WHERE state IN ('available', 'retryable') AND run_at > now()) AS "nextDueInMs"`,
    [limit, workerId, leaseMs / 1000],
  );
  const row = rows[0] as { jobs: (Omit<JobRow, "runAt" | "createdAt"> & { runAt: string; createdAt: string })[]; nextDueInMs: string | null };
  return {
    jobs: row.jobs.map((j) => ({ ...j, runAt: new Date(j.runAt), createdAt: new Date(j.createdAt) })),
    nextDueInMs: row.nextDueInMs === null ? null : Number(row.nextDueInMs),
  };
}
