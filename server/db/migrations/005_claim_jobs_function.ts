import type { Knex } from "knex";

// The claim as a function, for one reason: its SET clause. A claim must walk jobs_claim_idx in (run_at, id)
// order and stop after `limit` rows. When the table has just grown from a few rows to many (a campaign's
// fan-out, a burst of schedules) and autovacuum has not analysed it yet, the planner expects a handful of due
// rows and instead reads EVERY due row with a bitmap scan and sorts them: measured with EXPLAIN (ANALYZE,
// BUFFERS) on 20,000 due jobs, 32-40 ms per claim of 500 against 15 ms for the index walk. Turning sorts and
// bitmap scans off for this one statement leaves the planner only the index walk, whatever the statistics
// say. The UPDATE finds its rows by `id = ANY(array)` for the same reason (a hash join over the whole table
// otherwise).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION claim_jobs(p_limit integer, p_worker text, p_lease_seconds double precision)
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
                  WHERE state IN ('available', 'retryable') AND run_at <= now()
                  ORDER BY run_at, id
                  LIMIT p_limit
                  FOR UPDATE SKIP LOCKED))
        RETURNING j.id, j.kind, j.payload, j.attempt, j.max_attempts AS "maxAttempts", j.run_at AS "runAt", j.created_at AS "createdAt"
      )
      SELECT (SELECT coalesce(json_agg(c), '[]') FROM claimed c),
             (SELECT EXTRACT(EPOCH FROM min(run_at) - now())::double precision * 1000 FROM jobs
               WHERE state IN ('available', 'retryable') AND run_at > now())
    $$;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
