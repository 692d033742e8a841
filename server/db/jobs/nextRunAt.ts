import type { Knex } from "knex";

/** When the earliest waiting job is due (uses jobs_claim_idx), or undefined when nothing waits. */
export async function nextRunAt(db: Knex): Promise<Date | undefined> {
  const row = await db("jobs").whereIn("state", ["available", "retryable"]).orderBy("run_at").first("run_at");
  return row?.run_at;
}
