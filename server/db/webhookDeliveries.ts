import type { Knex } from "knex";
import type { CursorKey } from "../domain/cursor.js";
import { mayHoldBackLater } from "../domain/deliveryOrder.js";
import { byAccountKeysSql } from "./byIdFilters.js";
import { cursorAtColumn, newestFirstPage } from "./newestFirstPage.js";
import { completeHeldJobsSql, insertJobs, insertJobsSql, laneNowPayloadSql, laneOf, notifyWhenSql } from "./jobs/index.js";
import { endHandoffsSql } from "./receiptHandoffs.js";
import { perEventSql } from "./perEventWebhook.js";
import { run, sql } from "./sql.js";

export interface AttemptRecord {
  at: string;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
}

export interface DeliveryForDispatch {
  id: string;
  webhookId: string;
  accountId: string;
  messageId: string | null;
  seq: number;
  event: string;
  body: string;
  status: "pending" | "succeeded" | "failed";
  attempts: AttemptRecord[];
  url: string;
  secret: string;
  previousSecret: string | null;
  /** The webhook's failure run so far (a slowed-down webhook gets one delivery at a time). */
  consecutiveFailures: number;
  disabledAt: Date | null;
  /** Its webhook takes events in batches now (jobs/receiptBatches.ts): the dispatcher hands it to them. */
  batched: boolean;
  /** An earlier delivery of its message to this webhook was still pending when this was read (parkBehindEarlier). */
  earlierPending: boolean;
}

/** Deliveries with their webhook's URL and signing secrets (the previous one only while its grace lasts). */
export async function loadDeliveriesForDispatch(db: Knex, keys: { id: string; accountId: string }[]): Promise<DeliveryForDispatch[]> {
  return db("webhook_deliveries as d")
    .join("webhooks as w", (j) => j.on("w.id", "d.webhook_id").andOn("w.account_id", "d.account_id"))
    .where(byAccountKeysSql("d", keys).forBuilder(db))
    .select({
      id: "d.id",
      webhookId: "d.webhook_id",
      accountId: "d.account_id",
      messageId: "d.message_id",
      seq: "d.seq",
      event: "d.event",
      body: "d.body",
      status: "d.status",
      attempts: "d.attempts",
      url: "w.url",
      secret: "w.secret",
      previousSecret: db.raw("CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END"),
      consecutiveFailures: "w.consecutive_failures",
      disabledAt: "w.disabled_at",
      batched: db.raw("w.batch_max_events IS NOT NULL"),
      earlierPending: db.raw(
        `d.seq > 1 AND d.message_id IS NOT NULL AND EXISTS (SELECT 1 FROM webhook_deliveries e
           WHERE e.account_id = d.account_id AND e.message_id = d.message_id AND e.webhook_id = d.webhook_id
             AND e.seq < d.seq AND e.finished_at IS NULL)`,
      ),
    });
}

/*
 * "Still pending" is written `finished_at IS NULL` in the lookups of receipts by id or by message (the same
 * thing: a CHECK ties the two). Written `status = 'pending'`, it let the planner walk the index on status there
 * was then (webhook_id, status, …; dropped by migration 072) instead of the key or
 * the (message_id, webhook_id, seq) index whenever the statistics said few receipts were pending — the normal
 * state of a long-lived table — and a burst then read every pending receipt of the webhook per candidate:
 * 288 ms instead of 1.4 ms for 100 candidates with 20,000 pending (EXPLAIN ANALYZE), while holding FOR SHARE
 * locks. server/db/byIdFilters.ts does the same for messages.
 */

/**
 * Per message and webhook, receipts go out in seq order. A receipt with an earlier one still pending is
 * parked (its job ends without an attempt; a handed one's lease ends) and released, with a job, when that one
 * finishes. FOR SHARE on the earlier row
 * holds until this statement commits, so it cannot interleave with that row being finished (see
 * finishDeliveries). Returns the ids that were parked. The first receipt of a message waits for nothing.
 *
 * Only for deliveries whose `earlierPending` was true when loaded: an earlier delivery finished by then has gone
 * out first, and that is the order promised (were it redelivered since, the later one need not wait for the
 * copy). Most receipts come long after the one before them, so most batches need no park statement at all.
 */
export async function parkBehindEarlier(
  db: Knex,
  deliveries: { id: string; accountId: string; messageId: string | null; seq: number }[],
): Promise<Set<string>> {
  const candidates = deliveries.filter((d) => d.messageId && d.seq > 1);
  if (candidates.length === 0) return new Set();
  const { rows } = await run<{ id: string }>(
    db,
    sql`UPDATE webhook_deliveries d SET parked = true, handoff_id = NULL, handed_to = NULL, handed_until = NULL
       FROM unnest(${candidates.map((d) => d.id)}::uuid[], ${candidates.map((d) => d.accountId)}::uuid[]) AS p(id, account_id)
      WHERE d.account_id = p.account_id AND d.id = p.id AND d.finished_at IS NULL
        AND EXISTS (SELECT 1 FROM webhook_deliveries e
                     WHERE e.account_id = d.account_id AND e.message_id = d.message_id AND e.webhook_id = d.webhook_id
                       AND e.seq < d.seq AND e.finished_at IS NULL
                     FOR SHARE)
     RETURNING d.id`,
  );
  return new Set(rows.map((r) => r.id));
}

export interface AttemptOutcome {
  id: string;
  accountId: string;
  messageId: string | null;
  webhookId: string;
  /** The delivery's place among its message's deliveries (domain/deliveryOrder.ts). */
  seq: number;
  /** pending: failed, to be retried; succeeded; failed: for good. */
  status: "pending" | "succeeded" | "failed";
  attempt: AttemptRecord | null;
  /** The delivery's job, completed in the same statement: its id and the worker holding it. */
  completes?: { jobId: string; workerId: string };
  /**
   * A handed delivery (no job) that stays pending: the job it gets, due then (a retry after a failed attempt,
   * or a wait for its webhook's place).
   */
  requeueAt?: Date;
  /** Pending, given to its webhook's batches (the webhook batches now): it awaits the next batch. */
  toBatches?: boolean;
}

/**
 * Records attempts and finishes deliveries, all in one statement, with the jobs of those that `complete` theirs
 * (a job that ended with its delivery: no completion statement of its own); then releases the next parked
 * receipt of each finished one's message, unless no receipt can wait behind any of them (the last seq's).
 * Two statements, deliberately not one: the release must run with a snapshot taken after the finish committed.
 * A concurrent parkBehindEarlier either committed first (the finish waited on its row lock, and the release
 * sees the parked row) or comes after (it sees this one finished and does not park). A crash between the two
 * leaves a receipt parked; releaseOrphanedParkedDeliveries sweeps those.
 */
export async function finishDeliveries(db: Knex, outcomes: AttemptOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  const completing = outcomes.filter((o) => o.completes);
  const completed = sql`unnest(${completing.map((o) => o.completes!.jobId)}::uuid[], ${completing.map((o) => o.accountId)}::uuid[],
                              ${completing.map((o) => o.completes!.workerId)}::text[]) AS c(id, account_id, worker)`;
  // A final outcome changes no indexed column (migration 072): a HOT update. One that goes on (a retry as a
  // job, the batches) leaves its handoff, which no longer answers for it. A handoff all of whose deliveries
  // have an outcome now is deleted; one whose last two end in two concurrent statements is left to the rescuer,
  // which deletes it when its lease runs out. (handed_to/handed_until: a previous release's lease, ended too.)
  await run(
    db,
    sql`WITH c AS (${completeHeldJobsSql(completed)}), f AS (
       SELECT * FROM unnest(${outcomes.map((o) => o.id)}::uuid[], ${outcomes.map((o) => o.accountId)}::uuid[],
                            ${outcomes.map((o) => o.status)}::text[], ${outcomes.map((o) => (o.attempt ? JSON.stringify(o.attempt) : null))}::jsonb[],
                            ${outcomes.map((o) => o.requeueAt ?? null)}::timestamptz[], ${outcomes.map((o) => o.toBatches ?? false)}::boolean[])
         AS f(id, account_id, status, attempt, requeue_at, to_batches)
     ), held AS (
       SELECT DISTINCT d.handoff_id AS id FROM webhook_deliveries d JOIN f ON d.account_id = f.account_id AND d.id = f.id
        WHERE d.handoff_id IS NOT NULL
     ), u AS (
     UPDATE webhook_deliveries d
        SET status = f.status,
            finished_at = CASE WHEN f.status = 'pending' THEN NULL ELSE now() END,
            gave_up = f.status = 'failed',
            awaits_batch = f.to_batches,
            parked = false,
            attempts = CASE WHEN f.attempt IS NULL THEN d.attempts ELSE d.attempts || jsonb_build_array(f.attempt) END,
            handoff_id = CASE WHEN f.status = 'pending' THEN NULL ELSE d.handoff_id END,
            handed_to = NULL, handed_until = NULL
       FROM f
      WHERE d.account_id = f.account_id AND d.id = f.id
      RETURNING d.id, d.account_id, f.requeue_at
     ), j AS (
       ${insertJobsSql("deliver_receipt", {
         accountId: sql`u.account_id`,
         payload: sql`jsonb_build_object('deliveryId', u.id)`,
         runAt: sql`u.requeue_at`,
         from: sql`u WHERE u.requeue_at IS NOT NULL`,
       })}
     ), ended AS (
       ${endHandoffsSql(
         sql`held`,
         outcomes.map((o) => o.id),
       )}
     )
     SELECT 1`,
  );
  const finished = outcomes.filter((o) => o.status !== "pending" && o.messageId && mayHoldBackLater(o.seq));
  if (finished.length)
    await releaseNextParked(
      db,
      finished.map((o) => ({ accountId: o.accountId, messageId: o.messageId!, webhookId: o.webhookId })),
    );
}

/**
 * For each (message, webhook): unparks the lowest-seq parked receipt whose earlier receipts are all finished,
 * with its job. The UPDATE re-checks `parked` on the locked row, so two concurrent releases release it once.
 */
export async function releaseNextParked(db: Knex, pairs: { accountId: string; messageId: string; webhookId: string }[]): Promise<number> {
  if (pairs.length === 0) return 0;
  const { rows } = await run<{ n: number }>(
    db,
    sql`WITH next AS (
       UPDATE webhook_deliveries n SET parked = false
        WHERE n.parked AND n.status = 'pending' AND (n.account_id, n.id) IN (
          SELECT x.account_id, x.id
            FROM unnest(${pairs.map((p) => p.accountId)}::uuid[], ${pairs.map((p) => p.messageId)}::uuid[], ${pairs.map((p) => p.webhookId)}::uuid[])
              AS p(account_id, message_id, webhook_id)
          CROSS JOIN LATERAL (
            SELECT x.account_id, x.id FROM webhook_deliveries x
             WHERE x.account_id = p.account_id AND x.message_id = p.message_id AND x.webhook_id = p.webhook_id
               AND x.finished_at IS NULL AND x.parked
               AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e
                                WHERE e.account_id = x.account_id AND e.message_id = x.message_id AND e.webhook_id = x.webhook_id
                                  AND e.seq < x.seq AND e.finished_at IS NULL)
             ORDER BY x.seq LIMIT 1) x)
       RETURNING n.id, n.account_id
     ), j AS (
       ${insertJobsSql("deliver_receipt", { accountId: sql`next.account_id`, payload: sql`jsonb_build_object('deliveryId', next.id)`, from: sql`next` })}
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM j)::int AS n, ${notifyWhenSql(sql`EXISTS (SELECT 1 FROM j)`, laneNowPayloadSql(laneOf("deliver_receipt")))} AS notified`,
  );
  return rows[0]!.n;
}

/** Maintenance: releases parked receipts whose earlier receipts all finished (a crash between the two steps). */
export async function releaseOrphanedParkedDeliveries(db: Knex): Promise<number> {
  const orphans: { accountId: string; messageId: string; webhookId: string }[] = await db("webhook_deliveries as x")
    .where({ "x.parked": true, "x.status": "pending" })
    .whereNotExists(
      db("webhook_deliveries as e")
        .whereRaw(
          "e.account_id = x.account_id AND e.message_id = x.message_id AND e.webhook_id = x.webhook_id AND e.seq < x.seq AND e.finished_at IS NULL",
        )
        .select(db.raw("1")),
    )
    .andWhere("x.created_at", "<", db.raw("now() - interval '10 seconds'"))
    .distinct({ accountId: "x.account_id", messageId: "x.message_id", webhookId: "x.webhook_id" });
  return orphans.length ? releaseNextParked(db, orphans) : 0;
}

/** A delivery as the API shows it (DeliveryRow). */
const DELIVERY_COLUMNS = ["id", "message_id as messageId", "event", "status", "attempts", "created_at as createdAt"];

/**
 * Redeliver: queue the delivery again whatever its outcome so far (its attempt log is kept): with a job, or,
 * for a batched webhook, pending again for its next batch (its oldest event, so in the next one). Returns the
 * delivery as this transaction left it (pending), not as a worker may already have moved it; undefined when
 * there is no such delivery.
 */
export async function redeliver(db: Knex, accountId: string, webhookId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
  return db.transaction(async (tx) => {
    const row = await tx("webhook_deliveries as d")
      .join("webhooks as w", (j) => j.on("w.id", "d.webhook_id").andOn("w.account_id", "d.account_id"))
      .where({ "d.account_id": accountId, "d.id": deliveryId, "d.webhook_id": webhookId })
      .forUpdate("d")
      .first({ id: "d.id", batched: tx.raw("w.batch_max_events IS NOT NULL") });
    if (!row) return undefined;
    const [queued] = await tx("webhook_deliveries")
      .where({ account_id: accountId, id: deliveryId })
      .update({ parked: false, status: "pending", finished_at: null, gave_up: false, awaits_batch: row.batched, handoff_id: null })
      .returning(DELIVERY_COLUMNS);
    if (!row.batched) await insertJobs(tx, [{ kind: "deliver_receipt", payload: { deliveryId }, accountId }]);
    return queued as DeliveryRow;
  });
}

export interface DeliveryRow {
  id: string;
  messageId: string | null;
  event: string;
  status: "pending" | "succeeded" | "failed";
  attempts: AttemptRecord[];
  createdAt: Date;
}

export async function listDeliveries(
  db: Knex,
  accountId: string,
  webhookId: string,
  opts: { messageId?: string; status?: DeliveryRow["status"]; after?: CursorKey; limit: number },
): Promise<(DeliveryRow & CursorKey)[]> {
  const query = db("webhook_deliveries")
    .where({ account_id: accountId, webhook_id: webhookId })
    .select({ id: "id", messageId: "message_id", event: "event", status: "status", attempts: "attempts", createdAt: "created_at" })
    .select(cursorAtColumn(db, "created_at"));
  if (opts.messageId) query.where({ message_id: opts.messageId });
  // The failed list walks its own index (webhook_deliveries_failed_page_idx). The others read the webhook's log
  // (webhook_deliveries_webhook_page_idx): no index names `status` (migration 072, a success is a HOT update).
  // Succeeded is almost every delivery; pending ones are the newest (a delivery is retried at most three times),
  // and a page of them ends the walk, but with fewer than a page pending it reads the whole log, which retention
  // bounds (docs/API.md, "Webhooks").
  if (opts.status === "failed") query.where({ gave_up: true });
  else if (opts.status) query.where({ status: opts.status });
  return newestFirstPage(query, opts.after, opts.limit);
}

/**
 * The outbox for an event that is not a receipt: one delivery (and its deliver_receipt job) for every webhook of
 * the account subscribed to `event`, in one statement, inside the caller's transaction. `messageId` and `seq`
 * order the deliveries of one message per webhook, as for receipts.
 */
export async function insertEventDeliveries(
  db: Knex,
  accountId: string,
  event: { event: string; body: string; messageId: string | null; seq: number },
): Promise<number> {
  const { rows } = await run<{ n: number }>(
    db,
    sql`WITH d AS (
       INSERT INTO webhook_deliveries (id, webhook_id, account_id, message_id, event, seq, body, awaits_batch)
       SELECT gen_uuid_v7(), w.id, w.account_id, ${event.messageId}::uuid, ${event.event}, ${event.seq}, ${event.body},
              w.batch_max_events IS NOT NULL
         FROM webhooks w
        WHERE w.account_id = ${accountId} AND ${event.event} = ANY(w.events)
       RETURNING id, account_id, webhook_id
     ), j AS (
       ${insertJobsSql("deliver_receipt", { accountId: sql`d.account_id`, payload: sql`jsonb_build_object('deliveryId', d.id)`, from: sql`d WHERE ${perEventSql("d")}` })}
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM j)::int AS n, ${notifyWhenSql(sql`EXISTS (SELECT 1 FROM j)`, laneNowPayloadSql(laneOf("deliver_receipt")))} AS notified`,
  );
  return rows[0]!.n;
}
