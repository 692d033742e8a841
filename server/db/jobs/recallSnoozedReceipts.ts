import type { Knex } from "knex";
import { run, sql } from "../sql.js";
import { JOB_LANE_SQL, laneOf } from "./lanes.js";
import { laneNowPayloadSql, notifyWhenSql } from "./wakeUp.js";

/**
 * Makes the receipts a webhook's slow spell snoozed (jobs/handlers/deliverReceipt.ts, webhooks/pacing.ts) due
 * now, once it answers quickly again: they were put off by up to 30 s at the slow pace, and would otherwise
 * wait that long behind a receiver that is fast again. Walks the future part of the receipts lane (the lane
 * index), keeps the jobs of the webhook's pending deliveries (each looked up by its key: no index of
 * webhook_deliveries names `status`, migration 072), skips a row another statement holds. Returns
 * how many it recalled; wakes the receipts lanes when any.
 */
export async function recallSnoozedReceipts(db: Knex, accountId: string, webhookId: string): Promise<number> {
  const { rows } = await run<{ n: number }>(
    db,
    sql`WITH r AS (
          UPDATE jobs j SET run_at = now()
           WHERE j.id IN (
             SELECT id FROM jobs
              WHERE ${sql.raw(JOB_LANE_SQL)} = ${laneOf("deliver_receipt")}
                AND state = 'available' AND run_at > now() AND kind = 'deliver_receipt' AND account_id = ${accountId}
                AND EXISTS (
                  SELECT 1 FROM webhook_deliveries d
                   WHERE d.account_id = ${accountId} AND d.id = (jobs.payload->>'deliveryId')::uuid
                     AND d.webhook_id = ${webhookId} AND d.finished_at IS NULL)
              ORDER BY id
                FOR UPDATE SKIP LOCKED)
          RETURNING 1
        )
        SELECT (SELECT count(*) FROM r)::int AS n,
               ${notifyWhenSql(sql`EXISTS (SELECT 1 FROM r)`, laneNowPayloadSql(laneOf("deliver_receipt")))} AS notified`,
  );
  return rows[0]!.n;
}
