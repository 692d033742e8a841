import type { Knex } from "knex";

/**
 * Cancels a job of the account that has not started; a running or finished job is left alone. (A job a worker
 * of the previous release inserted has no account until it is claimed: left alone too, and harmless, since its
 * handler finds its message no longer scheduled.)
 */
export async function cancelPendingJob(tx: Knex.Transaction, accountId: string, jobId: string): Promise<boolean> {
  const count = await tx("jobs")
    .where({ account_id: accountId, id: jobId })
    .whereIn("state", ["available", "retryable"])
    .update({ state: "cancelled", finalized_at: tx.fn.now() });
  return count > 0;
}
