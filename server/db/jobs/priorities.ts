import { sql, type Sql } from "../sql.js";

/**
 * jobs.priority, lowest first: -1 a timed job (a send whose throughput slot is now: rescheduleJobs and a
 * waking snooze set it, and the fair claim takes these of every account first), 0 a `high` send, 1 a
 * `normal` one and every other job, 2 a `low` send. Apart from timed jobs, priority orders the jobs of one
 * account only: the claim shares a window between accounts first (db/jobs/functions/fairClaim.ts).
 * A timed job snoozed again without a slot goes back to 0, not to its send's own priority (which the job
 * row does not hold): it had been paid for, so it stays at the head of its account.
 */
export const TIMED_PRIORITY = -1;
export const HIGH_PRIORITY = 0;

/** A message's send job's jobs.priority (claimed 0 first), from an SQL expression of its priority's text. */
export const jobPrioritySql = (priority: Sql): Sql => sql`(array_position(ARRAY['high', 'normal', 'low'], ${priority}) - 1)::smallint`;
