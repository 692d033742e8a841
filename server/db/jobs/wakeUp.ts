// The wake-up rule: statements that make jobs claimable NOTIFY the listening workers (jobs/listener.ts), at
// commit (NOTIFY is transactional, so never before the rows exist). Every such statement uses these helpers.
import type { Knex } from "knex";
import { run, sql, type Sql } from "../sql.js";
import type { JobLane } from "./lanes.js";

export const JOBS_CHANNEL = "jobs_inserted";

/**
 * Workers look at the queue at least this often (their safety poll re-arms the timer for the next run_at), so
 * a job due later than this needs no NOTIFY. That matters: PostgreSQL serialises the commits of notifying
 * transactions (the notification queue lock is held through the commit), which capped POST /schedule.
 */
export const NOTIFY_HORIZON_MS = 5_000;

/**
 * The NOTIFY payload for new jobs whose earliest run_at is `earliest`: its ms since the epoch, so a worker
 * wakes at once for a due job and only re-arms its timer for a future one, instead of querying. Undefined
 * when the job is beyond the horizon and no NOTIFY is needed. With `lane` (all the new jobs are of that lane),
 * `<ms>@<lane>`: only that lane of each worker looks (runner.ts). A worker of the previous release reads no
 * number in it and looks at once, which is harmless.
 */
export function wakeUpPayload(earliest: Date, lane?: JobLane): string | undefined {
  if (earliest.getTime() - Date.now() >= NOTIFY_HORIZON_MS) return undefined;
  return lane ? `${earliest.getTime()}@${lane}` : String(earliest.getTime());
}

/** The SQL payload of a NOTIFY for jobs of `lane` due now. */
export const laneNowPayloadSql = (lane: JobLane): Sql => sql.raw(`'@${lane}'`);

/** A NOTIFY payload read: the time (empty: now) and the lane it is for (undefined: every lane). */
export function parseWakeUpPayload(payload: string | undefined): { time: string | undefined; lane: string | undefined } {
  const at = payload?.indexOf("@") ?? -1;
  return at < 0 ? { time: payload, lane: undefined } : { time: payload!.slice(0, at), lane: payload!.slice(at + 1) };
}

/** A NOTIFY sent only when `condition` holds; `payload` is an SQL expression ('' means "look now"). */
export const notifyWhenSql = (condition: Sql, payload: Sql = sql`''`): Sql =>
  sql`CASE WHEN ${condition} THEN pg_notify(${sql.raw(`'${JOBS_CHANNEL}'`)}, ${payload}) END`;

/** Wakes the workers now (or, given the earliest run_at of new jobs, when one is due within the horizon). */
export async function notifyWorkers(db: Knex, earliest?: Date): Promise<void> {
  const payload = earliest ? wakeUpPayload(earliest) : "";
  if (payload !== undefined) await run(db, sql`SELECT pg_notify(${JOBS_CHANNEL}, ${payload})`);
}
