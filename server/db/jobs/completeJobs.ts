import type { Knex } from "knex";

/**
 * Marks jobs completed, in one statement for a whole batch. Only jobs this worker still holds are touched: a
 * worker whose lease expired (and whose job was rescued and maybe re-claimed) cannot complete it.
 */
export async function completeJobs(db: Knex, workerId: string, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  return db("jobs")
    .whereIn("id", ids)
    .where({ state: "running", locked_by: workerId })
    .update({ state: "completed", finalized_at: db.fn.now(), locked_by: null, locked_until: null });
}
