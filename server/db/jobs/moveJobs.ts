import { sql, type Sql } from "../sql.js";

/**
 * Moves the account's waiting jobs that `jobIds` selects to run at `runAt`, their priority kept (a rescheduled
 * campaign's messages keep their place among due messages), as a statement to embed in a caller's CTE. A
 * running or finished job is left alone. Locked in id order, as every statement that writes many jobs locks
 * them (cancelPendingJobsSql says why). The caller wakes the workers if the new time is near.
 */
export function moveJobsSql(accountId: string, jobIds: Sql, runAt: Date): Sql {
  return sql`UPDATE jobs SET run_at = ${runAt}
              WHERE account_id = ${accountId}
                AND id IN (SELECT id FROM jobs
                            WHERE account_id = ${accountId} AND id IN (${jobIds}) AND state IN ('available', 'retryable')
                            ORDER BY id FOR UPDATE)`;
}
