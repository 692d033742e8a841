import type { Knex } from "knex";
import { notifyWorkers } from "./jobs/index.js";

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
 * parked (its job ends without an attempt) and released by the earlier one when that finishes. FOR SHARE on
 * the earlier row makes this safe against it finishing concurrently: whichever commits second sees the other.
 */
export async function parkIfBehind(db: Knex, d: { id: string; messageId: string | null; webhookId: string; seq: number }): Promise<boolean> {
  if (!d.messageId) return false;
  return db.transaction(async (tx) => {
    const earlier = await tx("webhook_deliveries")
      .where({ message_id: d.messageId, webhook_id: d.webhookId, status: "pending" })
      .andWhere("seq", "<", d.seq)
      .forShare()
      .first("id");
    if (!earlier) return false;
    await tx("webhook_deliveries").where({ id: d.id, status: "pending" }).update({ parked: true });
    return true;
  });
}

const appendAttempt = (db: Knex, attempt: AttemptRecord) => db.raw("attempts || ?::jsonb", [JSON.stringify([attempt])]);

/** Logs a failed attempt of a delivery that will be retried. */
export async function recordAttempt(db: Knex, deliveryId: string, attempt: AttemptRecord): Promise<void> {
  await db("webhook_deliveries").where({ id: deliveryId }).update({ attempts: appendAttempt(db, attempt) });
}

/** Finishes a delivery (succeeded, or failed for good) and releases the next parked receipt of its message. */
export async function finishDelivery(
  db: Knex,
  d: { id: string; messageId: string | null; webhookId: string; seq: number },
  status: "succeeded" | "failed",
  attempt: AttemptRecord | null,
): Promise<void> {
  await db.transaction(async (tx) => {
    const set: Record<string, unknown> = { status, finished_at: tx.fn.now(), parked: false };
    if (attempt) set.attempts = appendAttempt(tx, attempt);
    await tx("webhook_deliveries").where({ id: d.id }).update(set);
    if (!d.messageId) return;
    const next = await tx("webhook_deliveries")
      .where({ message_id: d.messageId, webhook_id: d.webhookId, status: "pending", parked: true })
      .andWhere("seq", ">", d.seq)
      .orderBy("seq")
      .forUpdate()
      .first("id");
    if (next) await requeue(tx, next.id);
  });
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
