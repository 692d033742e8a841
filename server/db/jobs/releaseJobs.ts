import type { Knex } from "knex";
import { notifyWorkers } from "./wakeUp.js";

/** On shutdown: hands the jobs this worker still holds back, to run now elsewhere, without using an attempt. */
export async function releaseJobs(db: Knex, workerId: string): Promise<number> {
  const count = await db("jobs")
    .where({ state: "running", locked_by: workerId })
    .update({ state: "available", attempt: db.raw("attempt - 1"), run_at: db.fn.now(), locked_by: null, locked_until: null });
  if (count) await notifyWorkers(db);
  return count;
}
