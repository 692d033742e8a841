import type { Knex } from "knex";
import { run, sql } from "../sql.js";
import { notifyWorkers } from "./wakeUp.js";

/**
 * Send jobs handed to a connector (jobs.connector_id) that no live worker holds a bound session of any more
 * (its holders died or lost the link, or it was disabled or deleted) are let go: any worker claims them and
 * judges their route again, which may fail them over or make them wait for a connector. A holder reported
 * within `liveMs` (connector_states) keeps its pins.
 */
export async function unpinJobs(db: Knex, liveMs: number): Promise<number> {
  const { rowCount } = await run(
    db,
    sql`UPDATE jobs j SET connector_id = NULL
         WHERE j.connector_id IS NOT NULL AND j.state IN ('available', 'retryable')
           AND NOT EXISTS (SELECT FROM connector_states s
                            WHERE s.connector_id = j.connector_id AND s.sessions_bound > 0
                              AND s.seen_at > now() - make_interval(secs => ${liveMs / 1000}))`,
  );
  if (rowCount) await notifyWorkers(db);
  return rowCount ?? 0;
}
