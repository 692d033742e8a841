import type { Knex } from "knex";
import { run, sql, type Sql } from "../sql.js";

/**
 * Finishes jobs that succeeded, in one statement for a whole batch, by deleting them: what a job did lives on
 * in the rows it served (the message and its history, the webhook delivery and its attempt log), and a
 * failed or cancelled job is kept for JOB_RETENTION_HOURS. Deleting costs a fifth of marking a row done (a
 * new row version plus entries in the primary key and jobs_finalized_idx, and a DELETE by the cleaner later).
 * Only jobs this worker still holds are touched: a worker whose lease expired (and whose job was rescued and
 * maybe re-claimed) cannot finish it. The rows are locked in id order, as every statement that locks a set of
 * jobs takes them (extendLeases.ts says what came of no order).
 */
export async function completeJobs(db: Knex, workerId: string, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  // One array parameter rather than a list of them: the statement text is the same for every batch size.
  const { rowCount } = await run(
    db,
    sql`DELETE FROM jobs WHERE id IN (
          SELECT id FROM jobs WHERE id = ANY(${ids}::uuid[]) AND state = 'running' AND locked_by = ${workerId}
           ORDER BY id FOR UPDATE)`,
  );
  return rowCount;
}

/**
 * `DELETE FROM jobs …` for a statement that records what its jobs did and completes them in the same
 * transaction (a receipt's finish, db/webhookDeliveries.ts): one statement instead of two per batch. `from`
 * yields rows (id, account_id, worker): each job is deleted only while that worker still holds it, as above.
 */
export function completeHeldJobsSql(from: Sql): Sql {
  return sql`DELETE FROM jobs j USING (
                SELECT h.id, h.account_id FROM jobs h JOIN ${from} ON h.id = c.id AND h.account_id = c.account_id
                 WHERE h.state = 'running' AND h.locked_by = c.worker
                 ORDER BY h.id FOR UPDATE OF h) held
              WHERE j.id = held.id AND j.account_id = held.account_id`;
}
