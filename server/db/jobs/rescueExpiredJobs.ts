import type { Knex } from "knex";
import { notifyWorkers } from "./wakeUp.js";
import { run, sql } from "../sql.js";

/**
 * Jobs whose lease ran out (their worker died or hung) become claimable again at once. The attempt still
 * counts; a job out of attempts is discarded. Handlers are written to be re-run safely (see sendMessage).
 * Rows locked by another statement (their worker completing them just now) are left for the next round.
 */
export async function rescueExpiredJobs(db: Knex): Promise<number> {
  const { rowCount } = await run(
    db,
    sql`UPDATE jobs
        SET state = CASE WHEN attempt >= max_attempts THEN 'discarded' ELSE 'retryable' END,
            finalized_at = CASE WHEN attempt >= max_attempts THEN now() END,
            run_at = now(),
            errors = errors || jsonb_build_array(jsonb_build_object('at', now(), 'attempt', attempt, 'error', 'lease expired: worker ' || locked_by || ' stopped')),
            locked_by = NULL, locked_until = NULL
      WHERE id IN (SELECT id FROM jobs WHERE state = 'running' AND locked_until < now() ORDER BY id FOR UPDATE SKIP LOCKED)`,
  );
  if (rowCount) await notifyWorkers(db);
  return rowCount;
}
