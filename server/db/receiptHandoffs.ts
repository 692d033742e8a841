// The leases of receipt deliveries handed to the worker whose status change made them (docs/ARCHITECTURE.md,
// "Handoff"; migration 072): one receipt_handoffs row for the deliveries of one statement. This file owns the
// table: what hands deliveries over (the INSERT beside them, db/messages/statusChange.ts, built here), what
// extends a lease, what ends one when its last delivery has an outcome, and what rescues an expired one.
// Who moves a row: its worker's heartbeat extends it; the outcome of its last delivery deletes it
// (db/webhookDeliveries.ts, finishDeliveries); a stopping worker, or the leader's rescue once it has expired,
// deletes it and gives its deliveries still pending a job each.
import type { Knex } from "knex";
import { insertJobsSql, laneNowPayloadSql, laneOf, notifyWhenSql } from "./jobs/index.js";
import { perEventSql } from "./perEventWebhook.js";
import { run, sql, type Sql } from "./sql.js";

/**
 * SQL: the handoff of the deliveries `handed` (a CTE of `delivery_id`, `account_id`) to `worker` for `lease`
 * seconds (both SQL): one row, none when nothing is handed. RETURNING its id.
 */
export function handOffSql(handed: Sql, worker: Sql, lease: Sql): Sql {
  return sql`INSERT INTO receipt_handoffs (handed_to, handed_until, account_ids, delivery_ids)
       SELECT ${worker}, now() + make_interval(secs => ${lease}), array_agg(t.account_id ORDER BY t.delivery_id),
              array_agg(t.delivery_id ORDER BY t.delivery_id)
         FROM ${handed} t
       HAVING count(*) > 0
       RETURNING id`;
}

/**
 * SQL: deletes the handoffs `held` (a CTE of their `id`) that answer for no pending delivery but those of
 * `finishing` (the outcomes this statement records, which its snapshot still shows pending). Two statements
 * that record the last two of a handoff at once each see the other's as pending: that handoff is left to the
 * rescue, which deletes it when its lease has run out, with nothing to hand over.
 */
export function endHandoffsSql(held: Sql, finishing: string[]): Sql {
  return sql`DELETE FROM receipt_handoffs h USING ${held} e
        WHERE h.id = e.id
          AND NOT EXISTS (SELECT 1 FROM unnest(h.account_ids, h.delivery_ids) AS k(account_id, id)
                            JOIN webhook_deliveries x ON x.account_id = k.account_id AND x.id = k.id
                           WHERE x.handoff_id = h.id AND x.finished_at IS NULL AND x.id <> ALL(${finishing}::uuid[]))`;
}

/**
 * Extends `workerId`'s leases of handed deliveries (a delivery attempted by the worker whose status change made
 * it, with no job: ClaimedJob.rowless): the handoffs that answer for them, one row each whatever the number of
 * its deliveries; returns the ids it still holds. By id alone: the runner's heartbeat knows only those.
 * (And a previous release's lease, in the delivery's own row: handed_to/handed_until, until migration 072's contract.)
 */
export async function extendHandedDeliveries(db: Knex, workerId: string, ids: string[], leaseMs: number): Promise<string[]> {
  const { rows } = await run<{ id: string }>(
    db,
    sql`WITH d AS (
       SELECT id, handoff_id FROM webhook_deliveries WHERE id = ANY(${ids}::uuid[]) AND handoff_id IS NOT NULL
     ), h AS (
       UPDATE receipt_handoffs SET handed_until = now() + make_interval(secs => ${leaseMs / 1000}::float8)
        WHERE id IN (SELECT handoff_id FROM d) AND handed_to = ${workerId}
        RETURNING id
     ), legacy AS (
       UPDATE webhook_deliveries SET handed_until = now() + make_interval(secs => ${leaseMs / 1000}::float8)
        WHERE id = ANY(${ids}::uuid[]) AND handed_to = ${workerId} RETURNING id
     )
     SELECT d.id FROM d JOIN h ON h.id = d.handoff_id UNION ALL SELECT id FROM legacy`,
  );
  return rows.map((r) => r.id);
}

/**
 * Ends leases of handed deliveries and gives each still pending (and not parked behind an earlier one, which
 * gets its job when released) a job due now, with a NOTIFY: those `workerId` holds (it is stopping), or those
 * whose lease ran out (their worker died; the leader's rescue). A worker that finishes one meanwhile records
 * its outcome over the job's: the job then finds it finished and does nothing.
 */
export async function handOverDeliveries(db: Knex, held: { by: string } | "expired"): Promise<number> {
  const which = (alias: string) =>
    held === "expired" ? sql.raw(`${alias}.handed_until < now()`) : sql`${sql.raw(alias)}.handed_to = ${held.by}`;
  const { rows } = await run<{ n: number }>(
    db,
    sql`WITH h AS (
       DELETE FROM receipt_handoffs h WHERE ${which("h")} RETURNING id, account_ids, delivery_ids
     ), r AS (
       UPDATE webhook_deliveries d SET handoff_id = NULL
         FROM h, unnest(h.account_ids, h.delivery_ids) AS x(account_id, id)
        WHERE d.account_id = x.account_id AND d.id = x.id AND d.handoff_id = h.id AND d.finished_at IS NULL
        RETURNING d.id, d.account_id, d.webhook_id, d.status, d.parked
     ), legacy AS (
       UPDATE webhook_deliveries d SET handed_to = NULL, handed_until = NULL
        WHERE d.handed_to IS NOT NULL AND ${which("d")}
        RETURNING d.id, d.account_id, d.webhook_id, d.status, d.parked
     ), r2 AS (
       SELECT * FROM r UNION ALL SELECT * FROM legacy
     ), j AS (
       ${insertJobsSql("deliver_receipt", {
         accountId: sql`r2.account_id`,
         payload: sql`jsonb_build_object('deliveryId', r2.id)`,
         from: sql`r2 WHERE r2.status = 'pending' AND NOT r2.parked AND ${perEventSql("r2")}`,
       })}
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM j)::int AS n, ${notifyWhenSql(sql`EXISTS (SELECT 1 FROM j)`, laneNowPayloadSql(laneOf("deliver_receipt")))} AS notified`,
  );
  return rows[0]!.n;
}
