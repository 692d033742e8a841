import type { Knex } from "knex";
import { notifyWorkers } from "./wakeUp.js";
import { run, sql } from "../sql.js";
import { TIMED_PRIORITY } from "./priorities.js";

/**
 * Moves waiting jobs (available or retryable) to run at new times (seconds since the epoch, the database's
 * clock), without counting an attempt, and wakes the workers for the earliest. They become timed jobs
 * (TIMED_PRIORITY), so once due they are claimed before everything that is merely due, of every account.
 * A job running or final is left alone. The throughput pacer makes a paid message's snoozed send job due at its
 * slot this way: it must start at its slot, or its segments would go out later, bunched with the next slots'.
 * Returns the ids it moved.
 */
export async function rescheduleJobs(tx: Knex, jobs: { id: string; runAt: number }[]): Promise<string[]> {
  if (jobs.length === 0) return [];
  const { rows } = await run<{ id: string }>(
    tx,
    // Locked in id order first (as cancelPendingJobsSql and completeJobs lock): see cancelPendingJobsSql.
    sql`WITH l AS (SELECT id FROM jobs WHERE id = ANY(${jobs.map((j) => j.id)}::uuid[]) AND state IN ('available', 'retryable')
                    ORDER BY id FOR UPDATE)
        UPDATE jobs j SET run_at = to_timestamp(r.run_at), priority = ${TIMED_PRIORITY}
          FROM unnest(${jobs.map((j) => j.id)}::uuid[], ${jobs.map((j) => j.runAt)}::float8[]) AS r(id, run_at), l
         WHERE j.id = r.id AND j.id = l.id AND j.state IN ('available', 'retryable')
        RETURNING j.id`,
  );
  await notifyWorkers(tx, new Date(Math.min(...jobs.map((j) => j.runAt)) * 1000));
  return rows.map((r) => r.id);
}
