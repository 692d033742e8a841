import type { Knex } from "knex";

// The claim without planner settings (db/jobs/functions/claimJobsV3.ts says why; the text frozen below): claim_jobs_v3, and
// jobs_claim_idx dropped so that the lane index is the one index a claim can walk in order. claim_jobs_v2 and
// claim_jobs stay for workers of the previous release during a rolling upgrade, their SET clauses reset: on a
// server with JIT those settings made every claimed provider report compile its account lookup.
const CLAIM_JOBS_V3 = `
CREATE FUNCTION claim_jobs_v3(p_limit integer, p_worker text, p_lease_seconds double precision, p_lane text)

  RETURNS TABLE (jobs json, next_due_in_ms double precision)
  LANGUAGE sql
AS $$
  WITH claimed AS (
    UPDATE jobs j
       SET state = 'running', attempt = j.attempt + 1, locked_by = p_worker,
           locked_until = now() + make_interval(secs => p_lease_seconds),
           account_id = CASE WHEN j.account_id IS NULL THEN job_account_of(j.kind, j.payload) ELSE j.account_id END
     WHERE j.id = ANY(ARRAY(
             SELECT l.id FROM  (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
              CROSS JOIN LATERAL (
                SELECT id FROM jobs
                 WHERE state IN ('available', 'retryable') AND (CASE WHEN kind = 'deliver_receipt' THEN 'receipts' ELSE 'default' END) = p_lane
                   AND priority = p.priority AND run_at <= now()
                 ORDER BY run_at, id
                 LIMIT p_limit
                 FOR UPDATE SKIP LOCKED) l
              LIMIT p_limit))

    RETURNING j.id, j.kind, j.payload, j.attempt, j.max_attempts AS "maxAttempts", j.run_at AS "runAt",
              j.created_at AS "createdAt", j.priority, j.account_id AS "accountId"
  )
  SELECT (SELECT coalesce(json_agg(json_build_object('id', c.id, 'kind', c.kind, 'payload', c.payload, 'attempt', c.attempt,
                    'maxAttempts', c."maxAttempts", 'runAt', c."runAt", 'createdAt', c."createdAt", 'accountId', c."accountId")
                  ORDER BY c.priority, c."runAt", c.id), '[]') FROM claimed c),

         (SELECT EXTRACT(EPOCH FROM min(n.run_at) - now())::double precision * 1000
            FROM  (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
           CROSS JOIN LATERAL (
             SELECT run_at FROM jobs
              WHERE state IN ('available', 'retryable') AND (CASE WHEN kind = 'deliver_receipt' THEN 'receipts' ELSE 'default' END) = p_lane
                AND priority = p.priority AND run_at > now()
              ORDER BY run_at
              LIMIT 1) n)
$$;

CREATE FUNCTION claim_jobs_v3(p_limit integer, p_worker text, p_lease_seconds double precision)

  RETURNS TABLE (jobs json, next_due_in_ms double precision)
  LANGUAGE sql
AS $$
  WITH claimed AS (
    UPDATE jobs j
       SET state = 'running', attempt = j.attempt + 1, locked_by = p_worker,
           locked_until = now() + make_interval(secs => p_lease_seconds),
           account_id = CASE WHEN j.account_id IS NULL THEN job_account_of(j.kind, j.payload) ELSE j.account_id END
     WHERE j.id = ANY(ARRAY(
             SELECT l.id FROM (VALUES ('default'), ('receipts')) AS ln(lane) CROSS JOIN (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
              CROSS JOIN LATERAL (
                SELECT id FROM jobs
                 WHERE state IN ('available', 'retryable') AND (CASE WHEN kind = 'deliver_receipt' THEN 'receipts' ELSE 'default' END) = ln.lane
                   AND priority = p.priority AND run_at <= now()
                 ORDER BY run_at, id
                 LIMIT p_limit
                 FOR UPDATE SKIP LOCKED) l
              LIMIT p_limit))

    RETURNING j.id, j.kind, j.payload, j.attempt, j.max_attempts AS "maxAttempts", j.run_at AS "runAt",
              j.created_at AS "createdAt", j.priority, j.account_id AS "accountId"
  )
  SELECT (SELECT coalesce(json_agg(c), '[]') FROM claimed c),

         (SELECT EXTRACT(EPOCH FROM min(n.run_at) - now())::double precision * 1000
            FROM (VALUES ('default'), ('receipts')) AS ln(lane) CROSS JOIN (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
           CROSS JOIN LATERAL (
             SELECT run_at FROM jobs
              WHERE state IN ('available', 'retryable') AND (CASE WHEN kind = 'deliver_receipt' THEN 'receipts' ELSE 'default' END) = ln.lane
                AND priority = p.priority AND run_at > now()
              ORDER BY run_at
              LIMIT 1) n)
$$;`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ${CLAIM_JOBS_V3}

    ALTER FUNCTION claim_jobs_v2(integer, text, double precision, text) RESET ALL;
    ALTER FUNCTION claim_jobs_v2(integer, text, double precision) RESET ALL;
    ALTER FUNCTION claim_jobs(integer, text, double precision, text) RESET ALL;
    ALTER FUNCTION claim_jobs(integer, text, double precision) RESET ALL;

    DROP INDEX jobs_claim_idx;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
