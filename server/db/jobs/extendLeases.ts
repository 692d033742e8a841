import type { Knex } from "knex";
import { run, sql } from "../sql.js";

/**
 * Heartbeat: pushes the lease of the jobs this worker holds; returns the ids it still holds.
 *
 * The rows are locked in id order and a row locked by another statement is skipped, not waited for: the
 * heartbeat ran beside this worker's own completions, which lock the same rows, and with the rows taken in no
 * fixed order the two deadlocked. PostgreSQL then cancelled one; a cancelled completion left receipts that had
 * been answered 200 to run again. A skipped row is being completed or failed at this moment: it counts as
 * held (the last SELECT reads the rows as they were when the statement began).
 */
export async function extendLeases(db: Knex, workerId: string, ids: string[], leaseMs: number): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await run<{ id: string }>(
    db,
    sql`WITH locked AS (
          SELECT id FROM jobs
           WHERE id = ANY(${ids}::uuid[]) AND state = 'running' AND locked_by = ${workerId}
           ORDER BY id
             FOR UPDATE SKIP LOCKED
        ), extended AS (
          UPDATE jobs j SET locked_until = now() + make_interval(secs => ${leaseMs / 1000})
            FROM locked WHERE j.id = locked.id
        )
        SELECT id FROM jobs WHERE id = ANY(${ids}::uuid[]) AND state = 'running' AND locked_by = ${workerId}`,
  );
  return rows.map((r) => r.id);
}
