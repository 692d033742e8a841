// What the alerting gauges read from the job table: how late the oldest due send is, and how receipt deliveries
// fare, and how many webhooks are disabled. One statement, each part on an index (the lane claim index for due
// sends, one probe per priority; the finalized index for given-up, webhooks_disabled_idx).
import type { Db } from "../knex.js";
import type { JobKind } from "./kinds.js";
import { JOB_LANE_SQL, laneOf } from "./lanes.js";
import { sql } from "../sql.js";

export interface QueueHealth {
  /** How long the oldest due, unclaimed send job has waited past its time (0 when none). */
  oldestDueSendSeconds: number;
  /** Receipt deliveries whose last attempt failed, waiting for a retry. */
  receiptsRetrying: number;
  /** Receipt deliveries that failed every attempt in the last hour. */
  receiptsGivenUpLastHour: number;
  /** Webhooks disabled after a long failure run (jobs/webhookHealth.ts), not enabled again yet. */
  webhooksDisabled: number;
}

const SEND: JobKind = "send_message";
const RECEIPT: JobKind = "deliver_receipt";

export async function readQueueHealth(db: Db, timeoutMs: number): Promise<QueueHealth> {
  const { rows } = await sql`SELECT
       (SELECT COALESCE(EXTRACT(EPOCH FROM now() - min(d.run_at)), 0)
          FROM (VALUES (0::smallint), (1::smallint), (2::smallint)) AS p(priority)
         CROSS JOIN LATERAL (
           SELECT run_at FROM jobs
            WHERE state IN ('available', 'retryable') AND ${sql.raw(JOB_LANE_SQL)} = ${laneOf(SEND)} AND priority = p.priority
              AND kind = ${SEND} AND run_at <= now()
            ORDER BY run_at LIMIT 1) d) AS oldest_due_seconds,
       (SELECT count(*) FROM jobs WHERE state = 'retryable' AND kind = ${RECEIPT}) AS retrying,
       (SELECT count(*) FROM jobs WHERE finalized_at > now() - interval '1 hour' AND kind = ${RECEIPT} AND state = 'discarded') AS given_up,
       (SELECT count(*) FROM webhooks WHERE disabled_at IS NOT NULL) AS webhooks_disabled`
    .forBuilder(db)
    .timeout(timeoutMs);
  const row = rows[0] as { oldest_due_seconds: string | number; retrying: number; given_up: number; webhooks_disabled: number };
  return {
    oldestDueSendSeconds: Number(row.oldest_due_seconds),
    receiptsRetrying: Number(row.retrying),
    receiptsGivenUpLastHour: Number(row.given_up),
    webhooksDisabled: Number(row.webhooks_disabled),
  };
}
