import type { Knex } from "knex";
import type { components } from "../../generated/api.js";

export type WebhookEventType = components["schemas"]["WebhookEventType"];

export interface WebhookRow {
  id: string;
  name: string;
  url: string;
  events: WebhookEventType[];
  createdAt: Date;
}

export interface WebhookSecrets {
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
}

const columns = ["id", "name", "url", "events", "created_at as createdAt"];

export async function insertWebhook(
  db: Knex,
  accountId: string,
  webhook: { name: string; url: string; secret: string; events?: WebhookEventType[] },
): Promise<WebhookRow> {
  const [row] = await db("webhooks")
    .insert({ account_id: accountId, ...webhook })
    .returning(columns);
  return row as WebhookRow;
}

/**
 * Registers the webhook unless the account already has `max`; undefined then. The account's row is locked for
 * the count and the insert, so concurrent registrations cannot both take the last place.
 */
export async function insertWebhookWithinLimit(
  db: Knex,
  accountId: string,
  webhook: { name: string; url: string; secret: string; events?: WebhookEventType[] },
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
    .select(columns);
}

export async function getWebhook(db: Knex, accountId: string, webhookId: string): Promise<WebhookRow | undefined> {
  return db("webhooks").where({ account_id: accountId, id: webhookId }).first(columns);
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
      previous_secret_expires_at: db.raw("now() + make_interval(secs => ?)", [graceMs / 1000]),
      secret: newSecret,
    });
  return count > 0;
}

export async function deleteWebhook(db: Knex, accountId: string, webhookId: string): Promise<boolean> {
  return (await db("webhooks").where({ account_id: accountId, id: webhookId }).del()) > 0;
}

/** Changes name, URL or events; undefined when there is no such webhook in the account. */
export async function updateWebhook(
  db: Knex,
  accountId: string,
  webhookId: string,
  changes: { name?: string; url?: string; events?: WebhookEventType[] },
): Promise<WebhookRow | undefined> {
  const patch: Record<string, unknown> = {};
  if (changes.name !== undefined) patch.name = changes.name;
  if (changes.url !== undefined) patch.url = changes.url;
  if (changes.events !== undefined) patch.events = [...new Set(changes.events)];
  if (Object.keys(patch).length === 0) return getWebhook(db, accountId, webhookId);
  const [row] = await db("webhooks").where({ account_id: accountId, id: webhookId }).update(patch).returning(columns);
  return row as WebhookRow | undefined;
}
