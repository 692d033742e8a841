// Retention: old messages (with their status history, receipt deliveries and SMPP segments, by ON DELETE
// CASCADE), old entries of the webhooks' delivery log, and message bodies past their time. Every statement
// handles one small batch found by an ordered walk of an index (a short transaction, locks on those rows
// only), so it runs beside live traffic. Only what is listed here is deleted: consent records (the opt-out
// list, once it exists) live in tables of their own and outlive the messages; see test/engine/retention.test.ts.
import type { Knex } from "knex";
import { run, sql } from "./sql.js";
import { FINAL_STATUSES, type StoredStatus } from "../domain/messageStatus.js";

/** What retention may delete: final outbound messages, and inbound ones (`received` is final from the start). */
const RETIRABLE_STATUSES: readonly StoredStatus[] = [...FINAL_STATUSES, "received"];

/** A position in an ascending (created_at, id) walk; created_at as text, to the microsecond. */
export interface WalkPosition {
  createdAt: string;
  id: string;
}

const START: WalkPosition = { createdAt: "-infinity", id: "00000000-0000-0000-0000-000000000000" };

export interface AccountRetention {
  accountId: string;
  /** The account's own MESSAGE_RETENTION_DAYS, or null for the default. */
  messageRetentionDays: number | null;
  /** Bodies of messages created before this are already erased (null: none yet). */
  bodiesRedactedBefore: Date | null;
}

export async function listAccountRetention(db: Knex): Promise<AccountRetention[]> {
  return db("accounts")
    .orderBy("id")
    .select({ accountId: "id", messageRetentionDays: "message_retention_days", bodiesRedactedBefore: "bodies_redacted_before" });
}

/**
 * The account's messages created before `before`, `limit` at a time from `after` in (created_at, id) order
 * (a backward walk of messages_account_page_idx), in one statement: deletes those in a final status (re-checked
 * on the locked row, so a message whose status moves on concurrently is left alone) or, with `redact`, erases
 * the body of those no longer waiting to be sent, listing those still waiting in bodies_awaiting_erasure (for
 * eraseAwaitedBodies once they are final: the walk does not come back). Returns how many it changed and where
 * the walk stopped (undefined when it reached the end).
 */
export async function retainAccountMessages(
  db: Knex,
  action: "delete" | "redact",
  o: { accountId: string; from?: Date | null; before: Date; after?: WalkPosition; limit: number },
): Promise<{ changed: number; next: WalkPosition | undefined }> {
  const after = o.after ?? START;
  const change =
    action === "delete"
      ? sql`DELETE FROM messages m WHERE m.id = ANY(ARRAY(SELECT id FROM batch)) AND m.status = ANY(${RETIRABLE_STATUSES}::text[]) RETURNING m.id`
      : sql`UPDATE messages m SET body = '', sent_body = NULL, reference = NULL, metadata = NULL
             WHERE m.id = ANY(ARRAY(SELECT id FROM batch)) AND m.status NOT IN ('scheduled', 'sending')
               AND (m.body <> '' OR m.reference IS NOT NULL OR m.metadata IS NOT NULL) RETURNING m.id`;
  const { rows } = await run<{ changed: number; walked: number; id: string | null; createdAt: string | null }>(
    db,
    sql`WITH batch AS (
       SELECT id, created_at FROM messages
        WHERE account_id = ${o.accountId} AND created_at >= ${o.from ?? "-infinity"}::timestamptz AND created_at < ${o.before}
          AND (created_at, id) > (${after.createdAt}::timestamptz, ${after.id}::uuid)
        ORDER BY created_at, id LIMIT ${o.limit}
     ), changed AS (${change}),
     simulated AS (DELETE FROM simulator_submissions s WHERE ${action === "delete"} AND s.message_id = ANY(ARRAY(SELECT id FROM changed))),
     awaiting AS (${action === "redact" ? listWaiting(o.accountId) : sql`SELECT 1`}),
     events AS (${action === "redact" ? eraseEventBodies(o.accountId) : sql`SELECT 1`})
     SELECT (SELECT count(*) FROM changed)::int AS changed, (SELECT count(*) FROM batch)::int AS walked,
            last.id, to_char(last.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "createdAt"
       FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT id, created_at FROM batch ORDER BY created_at DESC, id DESC LIMIT 1) last ON true`,
  );
  const row = rows[0]!;
  return { changed: row.changed, next: row.walked < o.limit ? undefined : { id: row.id!, createdAt: row.createdAt! } };
}

/** Embedded in the redact walk: the batch's messages still waiting to be sent, listed for a later run. */
function listWaiting(accountId: string) {
  return sql`INSERT INTO bodies_awaiting_erasure (message_id, account_id)
             SELECT m.id, ${accountId}::uuid FROM messages m
              WHERE m.id = ANY(ARRAY(SELECT id FROM batch)) AND m.status IN ('scheduled', 'sending')
                AND NOT (m.id = ANY(ARRAY(SELECT id FROM changed)))
             ON CONFLICT (message_id) DO NOTHING`;
}

/**
 * Erases up to `limit` bodies of the account's listed messages (bodies_awaiting_erasure) that are final now,
 * with their stored events' copies, and takes them off the list. Returns how many it took off.
 */
export async function eraseAwaitedBodies(db: Knex, accountId: string, limit: number): Promise<number> {
  const { rows } = await run<{ taken: number }>(
    db,
    sql`WITH batch AS (
       SELECT q.message_id AS id FROM bodies_awaiting_erasure q JOIN messages m ON m.id = q.message_id
        WHERE q.account_id = ${accountId} AND m.status NOT IN ('scheduled', 'sending') LIMIT ${limit}
     ), changed AS (
       UPDATE messages m SET body = '', sent_body = NULL, reference = NULL, metadata = NULL
        WHERE m.id = ANY(ARRAY(SELECT id FROM batch)) AND m.status NOT IN ('scheduled', 'sending') RETURNING m.id
     ), taken AS (DELETE FROM bodies_awaiting_erasure q WHERE q.message_id = ANY(ARRAY(SELECT id FROM changed)) RETURNING 1),
     events AS (${eraseEventBodies(accountId)})
     SELECT (SELECT count(*) FROM taken)::int AS taken`,
  );
  return rows[0]!.taken;
}

/**
 * The text of an erased message lives on in the stored payload of its message.received event, and its
 * reference and metadata in its receipts' (the exact bytes signed and posted, and posted again by redeliver):
 * erased there too, in place, the payload's other fields and their order unchanged. `,"body":"` cannot occur
 * inside a JSON string (a quote in one is escaped), so the patterns find the fields themselves; metadata holds
 * strings only, never a nested object. Embedded in retainAccountMessages' statement (reads `changed`).
 */
function eraseEventBodies(accountId: string) {
  return sql`UPDATE webhook_deliveries w
                SET body = regexp_replace(regexp_replace(regexp_replace(w.body, ${ERASE_BODY_FIELD}, ',"body":""'),
                                                         ${ERASE_REFERENCE}, ',"reference":null'), ${ERASE_METADATA}, ',"metadata":null')
              WHERE w.account_id = ${accountId} AND w.message_id = ANY(ARRAY(SELECT id FROM changed))`;
}
const JSON_STRING = '"(?:[^"\\\\]|\\\\.)*"';
const ERASE_BODY_FIELD = `,"body":${JSON_STRING}`;
const ERASE_REFERENCE = `,"reference":${JSON_STRING}`;
const ERASE_METADATA = `,"metadata":\\{(?:[^"}]|${JSON_STRING})*\\}`;

/**
 * The account's inbox threads whose latest message is older than `before`, up to `limit` (their messages are
 * gone with the same retention): with `erase`, their last body is erased instead (message bodies' retention).
 * Found through conversations_account_page_idx. Returns how many.
 */
export async function retainConversations(
  db: Knex,
  mode: "delete" | "erase",
  opts: { accountId: string; before: Date; limit: number },
): Promise<number> {
  const old = sql`SELECT id FROM conversations
                   WHERE account_id = ${opts.accountId} AND last_received_at < ${opts.before}
                     ${mode === "erase" ? sql`AND last_body <> ''` : sql``}
                   ORDER BY last_received_at LIMIT ${opts.limit}`;
  const { rowCount } = await run(
    db,
    mode === "delete"
      ? sql`DELETE FROM conversations WHERE account_id = ${opts.accountId} AND id IN (${old})`
      : sql`UPDATE conversations SET last_body = '' WHERE account_id = ${opts.accountId} AND id IN (${old})`,
  );
  return rowCount;
}

/** Records that every body of the account's messages created before `before` has been dealt with. */
export async function markBodiesRedacted(db: Knex, accountId: string, before: Date): Promise<void> {
  await db("accounts").where({ id: accountId }).update({ bodies_redacted_before: before });
}

/**
 * Deletes up to `limit` finished deliveries of one webhook created before `before` (a backward walk of
 * webhook_deliveries_webhook_page_idx). A pending one is kept: its retries are still running.
 */
export async function deleteOldDeliveries(db: Knex, webhookId: string, before: Date, limit: number): Promise<number> {
  const { rowCount } = await run(
    db,
    sql`DELETE FROM webhook_deliveries WHERE id = ANY(ARRAY(
          SELECT id FROM webhook_deliveries WHERE webhook_id = ${webhookId} AND created_at < ${before} AND status <> 'pending'
           ORDER BY created_at, id LIMIT ${limit}))`,
  );
  return rowCount;
}

export async function listWebhookIds(db: Knex): Promise<string[]> {
  return db("webhooks").orderBy("id").pluck("id");
}
