import type { Knex } from "knex";

/** Cancels a job that has not started; a running or finished job is left alone. */
export async function cancelPendingJob(tx: Knex.Transaction, jobId: string): Promise<boolean> {
  const count = await tx("jobs")
    .where({ id: jobId })
    .whereIn("state", ["available", "retryable"])
    .update({ state: "cancelled", finalized_at: tx.fn.now() });
  return count > 0;
}
