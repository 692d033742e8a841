import type { Knex } from "knex";
import { JOBS_CHANNEL, notifyWorkers } from "./jobs/index.js";

export const DELIVER_RECEIPT_JOB = "deliver_receipt";

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
}

/** The delivery with its webhook's URL and signing secrets (the previous one only while its grace lasts). */
export async function loadDeliveryForDispatch(db: Knex, deliveryId: string): Promise<DeliveryForDispatch | undefined> {
  return db("webhook_deliveries as d")
    .join("webhooks as w", "w.id", "d.webhook_id")
    .where("d.id", deliveryId)
    .first({
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
    });
}

/**
 * Per message and webhook, receipts go out in seq order. If an earlier receipt is still pending, this one is
 * parked (its job ends without an attempt) and released by the earlier one when that finishes. One
 * statement: FOR SHARE on the earlier row holds until it commits, so it cannot interleave with that row
 * being finished (see finishDelivery). The first receipt of a message has nothing to wait for.
 */
export async function parkIfBehind(db: Knex, d: { id: string; messageId: string | null; webhookId: string; seq: number }): Promise<boolean> {
  if (!d.messageId || d.seq <= 1) return false;
  const { rowCount } = await db.raw(
    `UPDATE webhook_deliveries SET parked = true
      WHERE id = ? AND status = 'pending'
        AND EXISTS (SELECT 1 FROM webhook_deliveries e
                     WHERE e.message_id = ? AND e.webhook_id = ? AND e.seq < ? AND e.status = 'pending'
                     FOR SHARE)`,
    [d.id, d.messageId, d.webhookId, d.seq],
  );
  return (rowCount ?? 0) > 0;
}

const appendAttempt = (db: Knex, attempt: AttemptRecord) => db.raw("attempts || ?::jsonb", [JSON.stringify([attempt])]);

/** Logs a failed attempt of a delivery that will be retried. */
export async function recordAttempt(db: Knex, deliveryId: string, attempt: AttemptRecord): Promise<void> {
  await db("webhook_deliveries").where({ id: deliveryId }).update({ attempts: appendAttempt(db, attempt) });
}

/**
 * Finishes a delivery (succeeded, or failed for good), then releases the next parked receipt of its message.
 * Two statements, deliberately not one: the release must run with a snapshot taken after the finish
 * committed. A concurrent parkIfBehind either committed first (the finish waited on its row lock, and the
 * release sees the parked row) or comes after (it sees this one finished and does not park). A crash between
 * the two statements leaves a receipt parked; releaseOrphanedParkedDeliveries sweeps those.
 */
export async function finishDelivery(
  db: Knex,
  d: { id: string; messageId: string | null; webhookId: string; seq: number },
  status: "succeeded" | "failed",
  attempt: AttemptRecord | null,
): Promise<void> {
  const set: Record<string, unknown> = { status, finished_at: db.fn.now(), parked: false };
  if (attempt) set.attempts = appendAttempt(db, attempt);
  await db("webhook_deliveries").where({ id: d.id }).update(set);
  if (d.messageId) await releaseNextParked(db, d.messageId, d.webhookId);
}

/** Unparks the lowest-seq parked receipt of a message whose earlier receipts are all finished, with its job. */
async function releaseNextParked(db: Knex, messageId: string, webhookId: string): Promise<number> {
  const { rows } = await db.raw(
    `WITH next AS (
       UPDATE webhook_deliveries n SET parked = false
        WHERE n.id = (SELECT x.id FROM webhook_deliveries x
                       WHERE x.message_id = ? AND x.webhook_id = ? AND x.status = 'pending' AND x.parked
                         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries e
                                          WHERE e.message_id = x.message_id AND e.webhook_id = x.webhook_id
                                            AND e.seq < x.seq AND e.status = 'pending')
                       ORDER BY x.seq LIMIT 1 FOR UPDATE)
       RETURNING n.id
     ), j AS (
       INSERT INTO jobs (kind, payload, max_attempts) SELECT ?, jsonb_build_object('deliveryId', next.id), 10 FROM next
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM j)::int AS n, CASE WHEN EXISTS (SELECT 1 FROM j) THEN pg_notify(?, '') END AS notified`,
    [messageId, webhookId, DELIVER_RECEIPT_JOB, JOBS_CHANNEL],
  );
  return rows[0].n as number;
}

/** Maintenance: releases parked receipts whose earlier receipts all finished (a crash between the two steps). */
export async function releaseOrphanedParkedDeliveries(db: Knex): Promise<number> {
  const orphans: { messageId: string; webhookId: string }[] = await db("webhook_deliveries as x")
    .where({ "x.parked": true, "x.status": "pending" })
    .whereNotExists(
      db("webhook_deliveries as e").whereRaw("e.message_id = x.message_id AND e.webhook_id = x.webhook_id AND e.seq < x.seq AND e.status = 'pending'").select(db.raw("1")),
    )
    .andWhere("x.created_at", "<", db.raw("now() - interval '1 minute'"))
    .distinct({ messageId: "x.message_id", webhookId: "x.webhook_id" });
  let released = 0;
  for (const o of orphans) released += await releaseNextParked(db, o.messageId, o.webhookId);
  return released;
}

async function requeue(tx: Knex.Transaction, deliveryId: string): Promise<void> {
  await tx("webhook_deliveries").where({ id: deliveryId }).update({ parked: false, status: "pending", finished_at: null });
  await tx("jobs").insert({ kind: DELIVER_RECEIPT_JOB, payload: { deliveryId }, max_attempts: 10 });
  await notifyWorkers(tx);
}

/** Redeliver: queue the delivery again whatever its outcome so far (its attempt log is kept). */
export async function redeliver(db: Knex, webhookId: string, deliveryId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const row = await tx("webhook_deliveries").where({ id: deliveryId, webhook_id: webhookId }).forUpdate().first("id");
    if (!row) return false;
    await requeue(tx, deliveryId);
    return true;
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

export async function getDelivery(db: Knex, webhookId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
  return db("webhook_deliveries")
    .where({ id: deliveryId, webhook_id: webhookId })
    .first({ id: "id", messageId: "message_id", event: "event", status: "status", attempts: "attempts", createdAt: "created_at" });
}

export async function listDeliveries(
  db: Knex,
  webhookId: string,
  opts: { messageId?: string; status?: DeliveryRow["status"]; after?: { createdAt: Date; id: string }; limit: number },
): Promise<DeliveryRow[]> {
  const query = db("webhook_deliveries")
    .where({ webhook_id: webhookId })
    .select({ id: "id", messageId: "message_id", event: "event", status: "status", attempts: "attempts", createdAt: "created_at" });
  if (opts.messageId) query.where({ message_id: opts.messageId });
  if (opts.status) query.where({ status: opts.status });
  if (opts.after) query.whereRaw("(created_at, id) < (?, ?)", [opts.after.createdAt, opts.after.id]);
  return query.orderBy([{ column: "created_at", order: "desc" }, { column: "id", order: "desc" }]).limit(opts.limit);
}
