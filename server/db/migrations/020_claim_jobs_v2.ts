import type { Knex } from "knex";

// The claim moves to claim_jobs_v2 (the body of the claim_jobs that migration 019 left, unchanged; its text
// frozen below, as this migration made it). claim_jobs stays for workers of the previous release during a rolling
// upgrade; a later migration drops it.
//
// The job state `completed` was never stored (a job that succeeds is deleted): it leaves the CHECKs.
const CLAIM_JOBS_V2 = `
CREATE OR REPLACE FUNCTION claim_jobs_v2(p_limit integer, p_worker text, p_lease_seconds double precision, p_lane text)

  RETURNS TABLE (jobs json, next_due_in_ms double precision)
  LANGUAGE sql
  SET enable_sort = off
  SET enable_bitmapscan = off
AS $$
  WITH claimed AS (
    UPDATE jobs j
       SET state = 'running', attempt = j.attempt + 1, locked_by = p_worker,
           locked_until = now() + make_interval(secs => p_lease_seconds),
           account_id = CASE WHEN j.account_id IS NULL THEN job_account_of(j.kind, j.payload) ELSE j.account_id END
     WHERE j.id = ANY(ARRAY(
             SELECT l.id FROM (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
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
            FROM (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
           CROSS JOIN LATERAL (
             SELECT run_at FROM jobs
              WHERE state IN ('available', 'retryable') AND (CASE WHEN kind = 'deliver_receipt' THEN 'receipts' ELSE 'default' END) = p_lane
                AND priority = p.priority AND run_at > now()
              ORDER BY run_at
              LIMIT 1) n)
$$;

CREATE OR REPLACE FUNCTION claim_jobs_v2(p_limit integer, p_worker text, p_lease_seconds double precision)

  RETURNS TABLE (jobs json, next_due_in_ms double precision)
  LANGUAGE sql
  SET enable_sort = off
  SET enable_bitmapscan = off
AS $$
  WITH claimed AS (
    UPDATE jobs j
       SET state = 'running', attempt = j.attempt + 1, locked_by = p_worker,
           locked_until = now() + make_interval(secs => p_lease_seconds),
           account_id = CASE WHEN j.account_id IS NULL THEN job_account_of(j.kind, j.payload) ELSE j.account_id END
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

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ${CLAIM_JOBS_V2}

    ALTER TABLE jobs DROP CONSTRAINT jobs_state_check;
    ALTER TABLE jobs ADD CONSTRAINT jobs_state_check
      CHECK (state IN ('available', 'running', 'retryable', 'cancelled', 'discarded')) NOT VALID;
    ALTER TABLE jobs VALIDATE CONSTRAINT jobs_state_check;
    ALTER TABLE jobs DROP CONSTRAINT jobs_check1;
    ALTER TABLE jobs ADD CONSTRAINT jobs_finalized_check
      CHECK ((state IN ('cancelled', 'discarded')) = (finalized_at IS NOT NULL)) NOT VALID;
    ALTER TABLE jobs VALIDATE CONSTRAINT jobs_finalized_check;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
