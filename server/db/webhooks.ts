import type { Knex } from "knex";
import { run, sql } from "./sql.js";
import type { components } from "../../generated/api.js";
import { byAccountKeysSql } from "./byIdFilters.js";
import { giveWaitingDeliveriesJobs } from "./receiptBatches.js";

export type WebhookEventType = components["schemas"]["WebhookEventType"];

export interface WebhookRow {
  id: string;
  name: string;
  url: string;
  events: WebhookEventType[];
  createdAt: Date;
  disabledAt: Date | null;
  disabledReason: string | null;
  /** Its events posted in batches, or null: one POST per event. */
  batch: WebhookBatch | null;
}

export interface WebhookBatch {
  maxEvents: number;
  maxDelayMs: number;
}

export interface WebhookSecrets {
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

const columns = [
  "id",
  "name",
  "url",
  "events",
  "created_at as createdAt",
  "disabled_at as disabledAt",
  "disabled_reason as disabledReason",
  "batch_max_events as batchMaxEvents",
  "batch_max_delay_ms as batchMaxDelayMs",
];

type StoredWebhook = Omit<WebhookRow, "batch"> & { batchMaxEvents: number | null; batchMaxDelayMs: number | null };

function toRow(stored: StoredWebhook): WebhookRow;
function toRow(stored: StoredWebhook | undefined): WebhookRow | undefined;
function toRow(stored: StoredWebhook | undefined): WebhookRow | undefined {
  if (!stored) return undefined;
  const { batchMaxEvents, batchMaxDelayMs, ...row } = stored;
  return { ...row, batch: batchMaxEvents === null ? null : { maxEvents: batchMaxEvents, maxDelayMs: batchMaxDelayMs ?? 0 } };
}

/** A webhook's batch settings as its columns (null: one POST per event). */
const batchColumns = (batch: WebhookBatch | null) => ({
  batch_max_events: batch?.maxEvents ?? null,
  batch_max_delay_ms: batch?.maxDelayMs ?? null,
});

type NewWebhook = { name: string; url: string; secret: string; events?: WebhookEventType[]; batch?: WebhookBatch | null };

export async function insertWebhook(db: Knex, accountId: string, webhook: NewWebhook): Promise<WebhookRow> {
  const { batch, ...rest } = webhook;
  const [row] = await db("webhooks")
    .insert({ account_id: accountId, ...rest, ...batchColumns(batch ?? null) })
    .returning(columns);
  return toRow(row as StoredWebhook);
}

/**
 * Registers the webhook unless the account already has `max`; undefined then. The account's row is locked for
 * the count and the insert, so concurrent registrations cannot both take the last place.
 */
export async function insertWebhookWithinLimit(
  db: Knex,
  accountId: string,
  webhook: NewWebhook,
  max: number,
): Promise<WebhookRow | undefined> {
  return db.transaction(async (tx) => {
    await tx("accounts").where({ id: accountId }).forUpdate().select("id");
    const [counted] = await tx("webhooks").where({ account_id: accountId }).count<{ count: string }[]>({ count: "*" });
    if (Number(counted?.count ?? 0) >= max) return undefined;
    return insertWebhook(tx, accountId, webhook);
  });
}

export async function listWebhooks(db: Knex, accountId: string): Promise<WebhookRow[]> {
  return db("webhooks")
    .where({ account_id: accountId })
    .orderBy([{ column: "created_at" }, { column: "id" }])
    .select(columns)
    .then((rows: StoredWebhook[]) => rows.map((r) => toRow(r)));
}

export async function getWebhook(db: Knex, accountId: string, webhookId: string): Promise<WebhookRow | undefined> {
  const stored: StoredWebhook | undefined = await db("webhooks").where({ account_id: accountId, id: webhookId }).first(columns);
  return toRow(stored);
}

export async function getWebhookSecrets(db: Knex, accountId: string, webhookId: string): Promise<WebhookSecrets | undefined> {
  return db("webhooks")
    .where({ account_id: accountId, id: webhookId })
    .first({ secret: "secret", previousSecret: "previous_secret", previousSecretExpiresAt: "previous_secret_expires_at" });
}

/** Replaces the secret; the old one stays valid for signing alongside the new one for `graceMs`. */
export async function rotateWebhookSecret(
  db: Knex,
  accountId: string,
  webhookId: string,
  newSecret: string,
  graceMs: number,
): Promise<boolean> {
  const count = await db("webhooks")
    .where({ account_id: accountId, id: webhookId })
    .update({
      previous_secret: db.ref("secret"),
      previous_secret_expires_at: sql`now() + make_interval(secs => ${graceMs / 1000})`.forBuilder(db),
      secret: newSecret,
    });
  return count > 0;
}

export async function deleteWebhook(db: Knex, accountId: string, webhookId: string): Promise<boolean> {
  return (await db("webhooks").where({ account_id: accountId, id: webhookId }).del()) > 0;
}

/** Re-enables a disabled webhook with a fresh failure run; false when there is no such webhook. */
export async function enableWebhook(db: Knex, accountId: string, webhookId: string): Promise<boolean> {
  const count = await db("webhooks")
    .where({ account_id: accountId, id: webhookId })
    .update({ disabled_at: null, disabled_reason: null, consecutive_failures: 0, failing_since: null });
  return count > 0;
}

/** Attempts of one webhook that ended together: failures after its last success, and whether one succeeded. */
export interface WebhookAttempts {
  webhookId: string;
  accountId: string;
  failuresSinceSuccess: number;
  succeeded: boolean;
}

export interface DisabledWebhook {
  id: string;
  accountId: string;
  consecutiveFailures: number;
  failingSince: Date;
  reason: string;
}

/**
 * Moves each webhook's failure run on (a success starts it again), then disables those whose run is at least
 * `afterFailures` attempts long and began at least `afterMs` ago (afterFailures 0: never). Returns the ones
 * disabled now.
 */
export async function recordWebhookAttempts(
  db: Knex,
  results: WebhookAttempts[],
  disable: { afterFailures: number; afterMs: number },
): Promise<DisabledWebhook[]> {
  if (results.length === 0) return [];
  await run(
    db,
    sql`UPDATE webhooks w
        SET consecutive_failures = CASE WHEN r.succeeded THEN r.failures ELSE w.consecutive_failures + r.failures END,
            failing_since = CASE WHEN r.failures = 0 THEN NULL
                                 WHEN r.succeeded OR w.failing_since IS NULL THEN now()
                                 ELSE w.failing_since END
       FROM unnest(${results.map((r) => r.webhookId)}::uuid[], ${results.map((r) => r.accountId)}::uuid[],
                   ${results.map((r) => r.failuresSinceSuccess)}::int[], ${results.map((r) => r.succeeded)}::boolean[])
         AS r(id, account_id, failures, succeeded)
      WHERE w.account_id = r.account_id AND w.id = r.id
        -- A healthy webhook's row is not written again: every receipt insert takes a key-share lock on it
        -- (the foreign key), and rewriting it after each batch of POSTs made that one row a hot spot that
        -- slowed every status change of the account.
        AND NOT (r.succeeded AND r.failures = 0 AND w.consecutive_failures = 0 AND w.failing_since IS NULL)`,
  );
  const keys = results.filter((r) => r.failuresSinceSuccess > 0).map((r) => ({ id: r.webhookId, accountId: r.accountId }));
  if (disable.afterFailures <= 0 || keys.length === 0) return [];
  const { rows } = await run<DisabledWebhook>(
    db,
    sql`UPDATE webhooks
        SET disabled_at = now(),
            disabled_reason = consecutive_failures || ' consecutive failed delivery attempts since ' ||
                              to_char(failing_since AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
      WHERE ${byAccountKeysSql("", keys)} AND disabled_at IS NULL
        AND consecutive_failures >= ${disable.afterFailures} AND failing_since <= now() - make_interval(secs => ${disable.afterMs / 1000})
      RETURNING id, account_id AS "accountId", consecutive_failures AS "consecutiveFailures",
                failing_since AS "failingSince", disabled_reason AS reason`,
  );
  return rows;
}

/**
 * Changes name, URL, events or batching; undefined when there is no such webhook in the account. Batching
 * turned off gives each event still waiting for a batch its job (one POST each from now), in the same
 * transaction; turned on, the events that have jobs are handed to the batches by the dispatcher
 * (deliverReceipt.ts).
 */
export async function updateWebhook(
  db: Knex,
  accountId: string,
  webhookId: string,
  changes: { name?: string; url?: string; events?: WebhookEventType[]; batch?: WebhookBatch | null },
): Promise<WebhookRow | undefined> {
  const patch: Record<string, unknown> = {};
  if (changes.name !== undefined) patch.name = changes.name;
  if (changes.url !== undefined) patch.url = changes.url;
  if (changes.events !== undefined) patch.events = [...new Set(changes.events)];
  if (changes.batch !== undefined) Object.assign(patch, batchColumns(changes.batch), changes.batch ? {} : { batch_retry_at: null });
  if (Object.keys(patch).length === 0) return getWebhook(db, accountId, webhookId);
  return db.transaction(async (tx) => {
    const [before] = await tx("webhooks").where({ account_id: accountId, id: webhookId }).forUpdate().select("batch_max_events");
    if (!before) return undefined;
    const [row] = await tx("webhooks").where({ account_id: accountId, id: webhookId }).update(patch).returning(columns);
    if (changes.batch === null && before.batch_max_events !== null) await giveWaitingDeliveriesJobs(tx, accountId, webhookId);
    return toRow(row as StoredWebhook);
  });
}
