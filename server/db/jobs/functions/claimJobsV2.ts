import { JOB_LANE_SQL } from "../lanes.js";

// claim_jobs_v2: the claim (claimJobs.ts calls it). Versioned by name: a released version is never
// edited. A change is a new file (claim_jobs_v3) and a migration that creates it, so that during a rolling
// upgrade the workers of the previous release keep calling the version they know; a later migration drops it.
//
// Why a function: its SET clause. A claim must walk the claim index in order and stop after `p_limit` rows.
// When the table has just grown from a few rows to many (a fan-out, a burst of schedules) and autovacuum has
// not analysed it yet, the planner expects a handful of due rows and instead reads every due row with a bitmap
// scan and sorts them. Turning sorts and bitmap scans off for this one statement leaves it only the index walk
// (bench/NOTES.md, "Figures behind the code"). The UPDATE finds its rows by `id = ANY(array)` for the same reason.
//
// With a lane: one ordered walk of jobs_lane_priority_claim_idx per priority (high, normal, low), the next
// read only when the one before has no more due jobs; the jobs returned in that order, then by run_at. The
// next-due lookup is one probe of the same index per priority. Without a lane (bench:queue, the job table's
// tests): jobs_claim_idx in run_at order, returned in no particular order.
//
// account_id: a job inserted without one (an SMSC's receipt, not matched yet; a job of a release before
// accounts were named) gets the account of the row its payload names (job_account_of), in the same UPDATE.

const HEAD = `
  RETURNS TABLE (jobs json, next_due_in_ms double precision)
  LANGUAGE sql
  SET enable_sort = off
  SET enable_bitmapscan = off
AS $$
  WITH claimed AS (
    UPDATE jobs j
       SET state = 'running', attempt = j.attempt + 1, locked_by = p_worker,
           locked_until = now() + make_interval(secs => p_lease_seconds),
           account_id = CASE WHEN j.account_id IS NULL THEN job_account_of(j.kind, j.payload) ELSE j.account_id END`;

const RETURNING = `
    RETURNING j.id, j.kind, j.payload, j.attempt, j.max_attempts AS "maxAttempts", j.run_at AS "runAt",
              j.created_at AS "createdAt", j.priority, j.account_id AS "accountId"
  )
  SELECT (SELECT coalesce(json_agg(json_build_object('id', c.id, 'kind', c.kind, 'payload', c.payload, 'attempt', c.attempt,
                    'maxAttempts', c."maxAttempts", 'runAt', c."runAt", 'createdAt', c."createdAt", 'accountId', c."accountId")
                  ORDER BY c.priority, c."runAt", c.id), '[]') FROM claimed c),`;

const PRIORITIES = `(VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)`;

/** The ids a lane's claim takes (its plan is checked by test/engine/lanes.test.ts and priority.test.ts). */
export const LANE_CLAIM_SELECT = `
             SELECT l.id FROM ${PRIORITIES}
              CROSS JOIN LATERAL (
                SELECT id FROM jobs
                 WHERE state IN ('available', 'retryable') AND ${JOB_LANE_SQL} = p_lane
                   AND priority = p.priority AND run_at <= now()
                 ORDER BY run_at, id
                 LIMIT p_limit
                 FOR UPDATE SKIP LOCKED) l
              LIMIT p_limit`;

export const CLAIM_JOBS_V2 = `
CREATE OR REPLACE FUNCTION claim_jobs_v2(p_limit integer, p_worker text, p_lease_seconds double precision, p_lane text)
${HEAD}
     WHERE j.id = ANY(ARRAY(${LANE_CLAIM_SELECT}))
${RETURNING}
         (SELECT EXTRACT(EPOCH FROM min(n.run_at) - now())::double precision * 1000
            FROM ${PRIORITIES}
           CROSS JOIN LATERAL (
             SELECT run_at FROM jobs
              WHERE state IN ('available', 'retryable') AND ${JOB_LANE_SQL} = p_lane
                AND priority = p.priority AND run_at > now()
              ORDER BY run_at
              LIMIT 1) n)
$$;

CREATE OR REPLACE FUNCTION claim_jobs_v2(p_limit integer, p_worker text, p_lease_seconds double precision)
${HEAD}
     WHERE j.id = ANY(ARRAY(
             SELECT id FROM jobs
              WHERE state IN ('available', 'retryable') AND run_at <= now()
              ORDER BY run_at, id
              LIMIT p_limit
              FOR UPDATE SKIP LOCKED))
    RETURNING j.id, j.kind, j.payload, j.attempt, j.max_attempts AS "maxAttempts", j.run_at AS "runAt",
              j.created_at AS "createdAt", j.account_id AS "accountId"
  )
  SELECT (SELECT coalesce(json_agg(c), '[]') FROM claimed c),
         (SELECT EXTRACT(EPOCH FROM min(run_at) - now())::double precision * 1000 FROM jobs
           WHERE state IN ('available', 'retryable') AND run_at > now())
$$;`;

/** The claim of one lane's due jobs, as db/jobs/claimJobs.ts prepares it. */
export const CLAIM_LANE_CALL =
  'SELECT jobs, next_due_in_ms AS "nextDueInMs" FROM claim_jobs_v2(:limit::int, :workerId::text, :leaseSeconds::float8, :lane::text)';
/** The claim of every lane's due jobs. */
export const CLAIM_ALL_CALL =
  'SELECT jobs, next_due_in_ms AS "nextDueInMs" FROM claim_jobs_v2(:limit::int, :workerId::text, :leaseSeconds::float8)';
