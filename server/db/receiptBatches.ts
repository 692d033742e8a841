// The batches of a batched webhook (webhooks.batch_max_events set): which webhooks have one due, the hold on
// the one batch in flight per webhook, and the batch's outcome. This file owns the webhooks' batch_held_by,
// batch_held_until and batch_retry_at (migration 050 says what each means); the deliveries' outcomes are
// written as finishDeliveries writes them for one event at a time.
import type { Knex } from "knex";
import type { AttemptRecord } from "./webhookDeliveries.js";
import { insertJobsSql, laneNowPayloadSql, laneOf, notifyWhenSql } from "./jobs/index.js";
import { run, sql } from "./sql.js";

/** One event of a batch: its delivery, and its stored JSON body. */
export interface BatchedDelivery {
  id: string;
  messageId: string | null;
  seq: number;
  body: string;
  /** Attempts made so far. */
  attempts: number;
}

/** A webhook's batch, held by the worker that claimed it until `heldUntil`. */
export interface ReceiptBatch {
  webhookId: string;
  accountId: string;
  url: string;
  secret: string;
  previousSecret: string | null;
  disabledAt: Date | null;
  /** Its oldest waiting events first, at most the webhook's maxEvents. */
  deliveries: BatchedDelivery[];
}

/**
 * A delivery `d` awaiting its webhook's batch: walked oldest first through webhook_deliveries_batch_waiting_idx
 * (migration 072). `status` too: a previous release's batch outcome, during an upgrade, leaves awaits_batch set.
 */
const WAITING_SQL = sql.raw(`d.awaits_batch AND d.status = 'pending' AND NOT d.parked`);

/**
 * Claims up to `limit` batched webhooks with a batch due: one that is not in flight (or whose holder's hold
 * ran out), past its retry time, with `maxEvents` events waiting or its oldest waiting `maxDelayMs`. Each is
 * held by `workerId` for `holdMs` with its events, oldest first. FOR NO KEY UPDATE … SKIP LOCKED: two workers
 * never claim one webhook, and receipt inserts (a key-share lock on the webhook, its foreign key) never wait.
 * The hold is written to the webhook row, so a claim that waited for another's commit sees it held.
 */
export async function claimReceiptBatches(db: Knex, workerId: string, holdMs: number, limit: number): Promise<ReceiptBatch[]> {
  const { rows } = await run<ReceiptBatch>(
    db,
    sql`WITH due AS (
       SELECT w.id FROM webhooks w
        CROSS JOIN LATERAL (
          SELECT count(*)::int AS n, min(x.created_at) AS oldest FROM (
            SELECT d.created_at FROM webhook_deliveries d
             WHERE d.account_id = w.account_id AND d.webhook_id = w.id AND ${WAITING_SQL}
             ORDER BY d.created_at, d.id LIMIT w.batch_max_events) x) p
        WHERE w.batch_max_events IS NOT NULL
          AND (w.batch_held_until IS NULL OR w.batch_held_until < now())
          AND (w.batch_retry_at IS NULL OR w.batch_retry_at <= now())
          AND p.n > 0 AND (p.n >= w.batch_max_events OR p.oldest <= now() - make_interval(secs => w.batch_max_delay_ms / 1000.0))
        ORDER BY p.oldest
        LIMIT ${limit}
        FOR NO KEY UPDATE OF w SKIP LOCKED
     ), held AS (
       UPDATE webhooks w SET batch_held_by = ${workerId}, batch_held_until = now() + make_interval(secs => ${holdMs / 1000}::float8)
         FROM due WHERE w.id = due.id
       RETURNING w.id, w.account_id, w.url, w.secret, w.disabled_at, w.batch_max_events,
                 CASE WHEN w.previous_secret_expires_at > now() THEN w.previous_secret END AS previous_secret
     )
     SELECT held.id AS "webhookId", held.account_id AS "accountId", held.url, held.secret,
            held.previous_secret AS "previousSecret", held.disabled_at AS "disabledAt",
            (SELECT coalesce(json_agg(json_build_object('id', e.id, 'messageId', e.message_id, 'seq', e.seq,
                                                        'body', e.body, 'attempts', e.attempts)
                                      ORDER BY e.created_at, e.id), '[]')
               FROM (SELECT d.id, d.message_id, d.seq, d.body, jsonb_array_length(d.attempts) AS attempts, d.created_at
                       FROM webhook_deliveries d
                      WHERE d.webhook_id = held.id AND d.account_id = held.account_id AND ${WAITING_SQL}
                      ORDER BY d.created_at, d.id LIMIT held.batch_max_events) e) AS deliveries
       FROM held`,
  );
  return rows.map((r) => ({ ...r, disabledAt: r.disabledAt && new Date(r.disabledAt) }));
}

/** What became of a batch: each event's status after this attempt, the attempt, and when the next may go. */
export interface BatchOutcome {
  webhookId: string;
  accountId: string;
  workerId: string;
  /** pending: to go again in a later batch; succeeded; failed: for good. */
  deliveries: { id: string; status: "pending" | "succeeded" | "failed" }[];
  attempt: AttemptRecord;
  /** No batch of this webhook before then (a failed attempt's backoff); null: at once. */
  retryAt: Date | null;
}

/**
 * Records a batch's attempt on each of its events and ends the hold, in one statement. An event finished
 * meanwhile (redelivered and posted another way after batching was turned off) is left as it is. A hold
 * taken over by another worker (this one's ran out) is not ended: that worker ends its own.
 */
export async function finishReceiptBatch(db: Knex, outcome: BatchOutcome): Promise<void> {
  const { deliveries } = outcome;
  await run(
    db,
    sql`WITH u AS (
       UPDATE webhook_deliveries d
          SET status = f.status,
              finished_at = CASE WHEN f.status = 'pending' THEN NULL ELSE now() END,
              gave_up = f.status = 'failed',
              awaits_batch = f.status = 'pending',
              attempts = d.attempts || jsonb_build_array(${JSON.stringify(outcome.attempt)}::jsonb)
         FROM unnest(${deliveries.map((d) => d.id)}::uuid[], ${deliveries.map((d) => d.status)}::text[]) AS f(id, status)
        WHERE d.account_id = ${outcome.accountId} AND d.id = f.id AND d.status = 'pending'
        RETURNING 1
     )
     UPDATE webhooks SET batch_held_by = NULL, batch_held_until = NULL, batch_retry_at = ${outcome.retryAt}::timestamptz
      WHERE account_id = ${outcome.accountId} AND id = ${outcome.webhookId} AND batch_held_by = ${outcome.workerId}`,
  );
}

/** A stopping worker's holds end (its batches in flight have finished or been given up). */
export async function releaseReceiptBatches(db: Knex, workerId: string): Promise<void> {
  await run(db, sql`UPDATE webhooks SET batch_held_by = NULL, batch_held_until = NULL WHERE batch_held_by = ${workerId}`);
}

/** Batching turned off: each delivery of the webhook still waiting (and not parked) gets its job, due now. */
export async function giveWaitingDeliveriesJobs(tx: Knex.Transaction, accountId: string, webhookId: string): Promise<number> {
  const { rows } = await run<{ n: number }>(
    tx,
    sql`WITH d AS (
       UPDATE webhook_deliveries d SET awaits_batch = false
        WHERE d.account_id = ${accountId} AND d.webhook_id = ${webhookId} AND ${WAITING_SQL}
       RETURNING d.id, d.account_id
     ), j AS (
       ${insertJobsSql("deliver_receipt", { accountId: sql`d.account_id`, payload: sql`jsonb_build_object('deliveryId', d.id)`, from: sql`d` })}
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM j)::int AS n, ${notifyWhenSql(sql`EXISTS (SELECT 1 FROM j)`, laneNowPayloadSql(laneOf("deliver_receipt")))} AS notified`,
  );
  return rows[0]!.n;
}
