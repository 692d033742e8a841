import type { Knex } from "knex";

/**
 * Which lane a job kind runs in. Receipt deliveries (slow, third-party HTTP) have a lane of their own, so they
 * never take the slots of sends and the other short jobs (docs/ARCHITECTURE.md, "Lanes"). The same
 * expression is the index's leading column and the claim's condition, so the planner matches them.
 */
const JOB_LANE_SQL = "(CASE WHEN kind = 'deliver_receipt' THEN 'receipts' ELSE 'default' END)";

// Lanes: a claim takes the due jobs of one lane, walking jobs_lane_claim_idx in (lane, run_at, id) order, so a
// lane never reads past thousands of another lane's due jobs. Same SET clause as claim_jobs (migration 005):
// the index walk whatever the statistics say. The three-argument claim_jobs (every lane) stays for runners
// without lanes (bench:queue, the job table's tests).
//
// Webhooks: the failure run that slows a webhook down and, when long, disables it (jobs/handlers/deliverReceipt.ts).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX jobs_lane_claim_idx ON jobs (${JOB_LANE_SQL}, run_at, id) WHERE state IN ('available', 'retryable');

    CREATE FUNCTION claim_jobs(p_limit integer, p_worker text, p_lease_seconds double precision, p_lane text)
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
                 SELECT id FROM jobs
                  WHERE state IN ('available', 'retryable') AND ${JOB_LANE_SQL} = p_lane AND run_at <= now()
                  ORDER BY ${JOB_LANE_SQL}, run_at, id
                  LIMIT p_limit
                  FOR UPDATE SKIP LOCKED))
        RETURNING j.id, j.kind, j.payload, j.attempt, j.max_attempts AS "maxAttempts", j.run_at AS "runAt", j.created_at AS "createdAt"
      )
      SELECT (SELECT coalesce(json_agg(c), '[]') FROM claimed c),
             (SELECT EXTRACT(EPOCH FROM min(run_at) - now())::double precision * 1000 FROM jobs
               WHERE state IN ('available', 'retryable') AND ${JOB_LANE_SQL} = p_lane AND run_at > now())
    $$;

    ALTER TABLE webhooks
      ADD COLUMN consecutive_failures  integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
      ADD COLUMN failing_since         timestamptz,
      ADD COLUMN disabled_at           timestamptz,
      ADD COLUMN disabled_reason       text,
      ADD CONSTRAINT webhooks_disabled_reason CHECK ((disabled_at IS NULL) = (disabled_reason IS NULL));
    CREATE INDEX webhooks_disabled_idx ON webhooks (disabled_at) WHERE disabled_at IS NOT NULL;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
