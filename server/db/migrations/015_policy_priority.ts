import type { Knex } from "knex";

// Category and priority (docs/API.md, "Sending policy").
// - messages.category / messages.priority as the API names them; campaigns keep theirs for fan-out (defaults:
//   transactional / normal for a scheduled message, marketing / low for a campaign).
// - jobs.priority: 0 high, 1 normal (every job that is not a send), 2 low. The lane claim takes due jobs in
//   (priority, run_at, id) order: one ordered walk of jobs_lane_priority_claim_idx per priority, the next
//   priority read only when the one before has no more due jobs, so a claim still reads only the rows it takes
//   and a high send due now is claimed before a backlog of low campaign sends due earlier. jobs_lane_claim_idx
//   (migration 009) stays for the next-due-time lookup, which is one index probe on it.
const PRIORITY_CLAIM_SELECT = `
  SELECT l.id FROM (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
    CROSS JOIN LATERAL (
      SELECT id FROM jobs
       WHERE state IN ('available', 'retryable') AND (CASE WHEN kind = 'deliver_receipt' THEN 'receipts' ELSE 'default' END) = p_lane AND priority = p.priority AND run_at <= now()
       ORDER BY run_at, id
       LIMIT p_limit
       FOR UPDATE SKIP LOCKED) l
   LIMIT p_limit`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE jobs ADD COLUMN priority smallint NOT NULL DEFAULT 1 CHECK (priority BETWEEN 0 AND 2);
    CREATE INDEX jobs_lane_priority_claim_idx ON jobs ((CASE WHEN kind = 'deliver_receipt' THEN 'receipts' ELSE 'default' END), priority, run_at, id)
      WHERE state IN ('available', 'retryable');

    ALTER TABLE messages
      ADD COLUMN category text NOT NULL DEFAULT 'transactional' CHECK (category IN ('transactional', 'marketing')),
      ADD COLUMN priority text NOT NULL DEFAULT 'normal' CHECK (priority IN ('high', 'normal', 'low'));
    ALTER TABLE campaigns
      ADD COLUMN category text NOT NULL DEFAULT 'marketing' CHECK (category IN ('transactional', 'marketing')),
      ADD COLUMN priority text NOT NULL DEFAULT 'low' CHECK (priority IN ('high', 'normal', 'low'));

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
         WHERE j.id = ANY(ARRAY(${PRIORITY_CLAIM_SELECT}))
        RETURNING j.id, j.kind, j.payload, j.attempt, j.max_attempts AS "maxAttempts", j.run_at AS "runAt",
                  j.created_at AS "createdAt", j.priority
      )
      SELECT (SELECT coalesce(json_agg(json_build_object('id', c.id, 'kind', c.kind, 'payload', c.payload, 'attempt', c.attempt,
                        'maxAttempts', c."maxAttempts", 'runAt', c."runAt", 'createdAt', c."createdAt")
                      ORDER BY c.priority, c."runAt", c.id), '[]') FROM claimed c),
             (SELECT EXTRACT(EPOCH FROM min(run_at) - now())::double precision * 1000 FROM jobs
               WHERE state IN ('available', 'retryable') AND (CASE WHEN kind = 'deliver_receipt' THEN 'receipts' ELSE 'default' END) = p_lane AND run_at > now())
    $$;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
