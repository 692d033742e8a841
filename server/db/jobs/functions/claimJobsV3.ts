import { JOB_LANE_SQL, LANE_OF_KIND } from "../lanes.js";

// claim_jobs_v3: the claim (claimJobs.ts calls it). Versioned by name: a released version is never edited. A
// change is a new file and a migration that creates it, so that during a rolling upgrade the workers of the
// previous release keep calling the version they know (claim_jobs_v2); a later migration drops it.
//
// No planner settings. claim_jobs_v2 pinned its index walk with `SET enable_sort = off, enable_bitmapscan =
// off`. Those settings reached every statement planned inside it, job_account_of's provider-report lookup
// among them: that lookup needs a sort, so it was costed near 10^10, above jit_above_cost, and on a server with
// JIT (Debian's and most hosted PostgreSQL) each claimed report compiled a 0.07 ms query for ~120 ms
// (bench/NOTES.md, "Stock PostgreSQL with JIT"). The walk is pinned by the schema instead: migration 021 drops
// jobs_claim_idx, so jobs_lane_priority_claim_idx is the only index whose order serves a claim, and on a table
// no ANALYZE has seen the planner walks it (test/engine/young-table-plans.test.ts holds that plan).
//
// With a lane: one ordered walk of jobs_lane_priority_claim_idx per priority (high, normal, low), the next read
// only when the one before has no more due jobs; the jobs returned in that order, then by run_at. The next-due
// lookup is one probe of the same index per priority. Without a lane (bench:queue, the job table's tests): the
// same walk for every lane, the jobs returned in no particular order.
//
// account_id: a job inserted without one (an SMSC's receipt, not matched yet; a job of a release before
// accounts were named) gets the account of the row its payload names (job_account_of), in the same UPDATE.

const LANES = `(VALUES ${[...new Set(Object.values(LANE_OF_KIND))].map((lane) => `('${lane}')`).join(", ")}) AS ln(lane)`;
const PRIORITIES = `(VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)`;

const HEAD = `
  RETURNS TABLE (jobs json, next_due_in_ms double precision)
  LANGUAGE sql
AS $$
  WITH claimed AS (
    UPDATE jobs j
       SET state = 'running', attempt = j.attempt + 1, locked_by = p_worker,
           locked_until = now() + make_interval(secs => p_lease_seconds),
           account_id = CASE WHEN j.account_id IS NULL THEN job_account_of(j.kind, j.payload) ELSE j.account_id END`;

const RETURNING = `
    RETURNING j.id, j.kind, j.payload, j.attempt, j.max_attempts AS "maxAttempts", j.run_at AS "runAt",
              j.created_at AS "createdAt", j.priority, j.account_id AS "accountId"
  )`;

/** Which lanes a claim reads: the one named, or every lane (a FROM item with a column `lane`). */
interface Lanes {
  from: string;
  lane: string;
}
const ONE_LANE: Lanes = { from: "", lane: "p_lane" };
const EVERY_LANE: Lanes = { from: `${LANES} CROSS JOIN`, lane: "ln.lane" };

/** The ids a claim takes from `lanes`. */
const claimSelect = ({ from, lane }: Lanes) => `
             SELECT l.id FROM ${from} ${PRIORITIES}
              CROSS JOIN LATERAL (
                SELECT id FROM jobs
                 WHERE state IN ('available', 'retryable') AND ${JOB_LANE_SQL} = ${lane}
                   AND priority = p.priority AND run_at <= now()
                 ORDER BY run_at, id
                 LIMIT p_limit
                 FOR UPDATE SKIP LOCKED) l
              LIMIT p_limit`;

/** When the next job of `lanes` is due: one probe of the lane index per lane and priority. */
const nextDue = ({ from, lane }: Lanes) => `
         (SELECT EXTRACT(EPOCH FROM min(n.run_at) - now())::double precision * 1000
            FROM ${from} ${PRIORITIES}
           CROSS JOIN LATERAL (
             SELECT run_at FROM jobs
              WHERE state IN ('available', 'retryable') AND ${JOB_LANE_SQL} = ${lane}
                AND priority = p.priority AND run_at > now()
              ORDER BY run_at
              LIMIT 1) n)`;

/** The ids a lane's claim takes (its plan is checked by test/engine/lanes.test.ts and priority.test.ts). */
export const LANE_CLAIM_SELECT = claimSelect(ONE_LANE);

export const CLAIM_JOBS_V3 = `
CREATE FUNCTION claim_jobs_v3(p_limit integer, p_worker text, p_lease_seconds double precision, p_lane text)
${HEAD}
     WHERE j.id = ANY(ARRAY(${LANE_CLAIM_SELECT}))
${RETURNING}
  SELECT (SELECT coalesce(json_agg(json_build_object('id', c.id, 'kind', c.kind, 'payload', c.payload, 'attempt', c.attempt,
                    'maxAttempts', c."maxAttempts", 'runAt', c."runAt", 'createdAt', c."createdAt", 'accountId', c."accountId")
                  ORDER BY c.priority, c."runAt", c.id), '[]') FROM claimed c),
${nextDue(ONE_LANE)}
$$;

CREATE FUNCTION claim_jobs_v3(p_limit integer, p_worker text, p_lease_seconds double precision)
${HEAD}
     WHERE j.id = ANY(ARRAY(${claimSelect(EVERY_LANE)}))
${RETURNING}
  SELECT (SELECT coalesce(json_agg(c), '[]') FROM claimed c),
${nextDue(EVERY_LANE)}
$$;`;
