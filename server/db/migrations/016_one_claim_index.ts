import type { Knex } from "knex";

// One claim index per lane claim, not two. jobs_lane_claim_idx (migration 009) was kept only for the claim's
// next-due-time lookup; every job insert, snooze and retry wrote an entry to it as well as to
// jobs_lane_priority_claim_idx. The lookup is now one probe of the priority index per priority (three, each
// reading one entry). One index entry fewer per job write; bench:dispatch did not move measurably (within its
// run-to-run noise), the claim's EXPLAIN is unchanged (test/engine/lanes.test.ts).
const NEXT_DUE_SELECT = `
  SELECT EXTRACT(EPOCH FROM min(n.run_at) - now())::double precision * 1000
    FROM (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
    CROSS JOIN LATERAL (
      SELECT run_at FROM jobs
       WHERE state IN ('available', 'retryable') AND (CASE WHEN kind = 'deliver_receipt' THEN 'receipts' ELSE 'default' END) = p_lane AND priority = p.priority AND run_at > now()
       ORDER BY run_at
       LIMIT 1) n`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE OR REPLACE FUNCTION claim_jobs(p_limit integer, p_worker text, p_lease_seconds double precision, p_lane text)
      RETURNS TABLE (jobs json, next_due_in_ms double precision)
      LANGUAGE sql
      SET enable_sort = off
      SET enable_bitmapscan = off
    AS $$
      WITH claimed AS (
        UPDATE jobs j
           SET state = 'running', attempt = j.attempt + 1, locked_by = p_worker,
               locked_until = now() + make_interval(secs => p_lease_seconds)
         WHERE j.id = ANY(ARRAY(
  SELECT l.id FROM (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
    CROSS JOIN LATERAL (
      SELECT id FROM jobs
       WHERE state IN ('available', 'retryable') AND (CASE WHEN kind = 'deliver_receipt' THEN 'receipts' ELSE 'default' END) = p_lane AND priority = p.priority AND run_at <= now()
       ORDER BY run_at, id
       LIMIT p_limit
       FOR UPDATE SKIP LOCKED) l
   LIMIT p_limit))
        RETURNING j.id, j.kind, j.payload, j.attempt, j.max_attempts AS "maxAttempts", j.run_at AS "runAt",
                  j.created_at AS "createdAt", j.priority
      )
      SELECT (SELECT coalesce(json_agg(json_build_object('id', c.id, 'kind', c.kind, 'payload', c.payload, 'attempt', c.attempt,
                        'maxAttempts', c."maxAttempts", 'runAt', c."runAt", 'createdAt', c."createdAt")
                      ORDER BY c.priority, c."runAt", c.id), '[]') FROM claimed c),
             (${NEXT_DUE_SELECT})
    $$;
    DROP INDEX jobs_lane_claim_idx;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
