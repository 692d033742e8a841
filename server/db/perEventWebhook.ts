// Whether a receipt delivery's webhook takes its events one POST at a time (no `batch`): such a delivery gets a
// job of its own where a batched webhook's awaits its batch (jobs/receiptBatches.ts). Shared by the statements
// that give deliveries jobs (db/webhookDeliveries.ts, db/receiptHandoffs.ts).
import { sql } from "./sql.js";

/** SQL: the delivery row `alias` (with its webhook_id) is of a webhook posting one event at a time. */
export const perEventSql = (alias: string) =>
  sql.raw(
    `NOT EXISTS (SELECT 1 FROM webhooks bw WHERE bw.account_id = ${alias}.account_id AND bw.id = ${alias}.webhook_id AND bw.batch_max_events IS NOT NULL)`,
  );
