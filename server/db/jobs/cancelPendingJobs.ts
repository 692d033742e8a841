import type { Knex } from "knex";
import { run, sql, type Sql } from "../sql.js";

/**
 * Cancels a job of the account that has not started; a running or finished job is left alone. (A job a worker
 * of the previous release inserted has no account until it is claimed: left alone too, and harmless, since its
 * handler finds its message no longer scheduled.)
 */
export async function cancelPendingJob(tx: Knex.Transaction, accountId: string, jobId: string): Promise<boolean> {
  const { rowCount } = await run(tx, cancelPendingJobsSql(accountId, sql`SELECT ${jobId}::uuid`));
  return rowCount > 0;
}

/**
 * The same for every job whose id `jobIds` selects, as a statement to embed in a caller's CTE (a campaign's
 * cancel cancels its messages and their jobs in one statement). The rows are locked in id order, as every
 * statement that writes many jobs locks them (completeJobs, rescheduleJobs): a campaign's cancel of thousands
 * of jobs and the pacer's release of a few of them, each taking its rows in its own scan order, deadlocked.
 */
export function cancelPendingJobsSql(accountId: string, jobIds: Sql): Sql {
  return sql`UPDATE jobs SET state = 'cancelled', finalized_at = now()
              WHERE account_id = ${accountId}
                AND id IN (SELECT id FROM jobs
                            WHERE account_id = ${accountId} AND id IN (${jobIds}) AND state IN ('available', 'retryable')
                            ORDER BY id FOR UPDATE)`;
}
