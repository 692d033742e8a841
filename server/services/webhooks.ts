// Webhook registration and its secrets, and the synchronous test receipt (POST /webhooks/{id}/test).
import { uuidv7 } from "../domain/uuidv7.js";
import type { Knex } from "knex";
import {
  getWebhook,
  getWebhookSecrets,
  insertWebhookWithinLimit,
  rotateWebhookSecret,
  updateWebhook,
  type WebhookBatch,
  type WebhookEventType,
  type WebhookRow,
} from "../db/webhooks.js";
import { batchBody, batchId } from "../domain/receiptBatch.js";
import { DomainError, invalidField, notFound } from "../domain/errors.js";
import { generateWebhookSecret } from "../domain/webhookSecrets.js";
import type { PostResult, ReceiptClient } from "../webhooks/client.js";
import { receiptHeaders } from "../webhooks/signing.js";
import { webhookUrlProblem, type Resolver } from "../webhooks/urlPolicy.js";

/** After a rotation the old secret still signs receipts, alongside the new one, for this long. */
export const SECRET_ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

/**
 * Registers a webhook whose URL passes the policy, while the account has fewer than `maxPerAccount` (every
 * webhook multiplies the receipts each message costs); returns it with its new signing secret.
 */
export async function createWebhook(
  db: Knex,
  accountId: string,
  input: { name: string; url: string; events?: WebhookEventType[]; batch?: WebhookBatch | null },
  policy: { allowPrivate: boolean; resolver?: Resolver; maxPerAccount: number },
): Promise<{ webhook: WebhookRow; secret: string }> {
  const problem = await webhookUrlProblem(input.url, policy.allowPrivate, policy.resolver);
  if (problem) throw invalidField("/body/url", problem);
  const secret = generateWebhookSecret();
  const events = input.events ? [...new Set(input.events)] : undefined;
  const webhook = await insertWebhookWithinLimit(
    db,
    accountId,
    { name: input.name, url: input.url, secret, events, batch: input.batch },
    policy.maxPerAccount,
  );
  if (!webhook) {
    throw new DomainError(
      "webhook_limit_reached",
      `This account already has ${policy.maxPerAccount} webhooks, the most it may have; delete one to register another.`,
    );
  }
  return { webhook, secret };
}

/** Changes a webhook; a new URL passes the same policy as on registration. */
export async function changeWebhook(
  db: Knex,
  accountId: string,
  webhookId: string,
  input: { name?: string; url?: string; events?: WebhookEventType[]; batch?: WebhookBatch | null },
  policy: { allowPrivate: boolean; resolver?: Resolver },
): Promise<WebhookRow> {
  if (!(await getWebhook(db, accountId, webhookId))) throw notFound("Webhook");
  if (input.url !== undefined) {
    const problem = await webhookUrlProblem(input.url, policy.allowPrivate, policy.resolver);
    if (problem) throw invalidField("/body/url", problem);
  }
  const webhook = await updateWebhook(db, accountId, webhookId, input);
  if (!webhook) throw notFound("Webhook");
  return webhook;
}

/** A new secret; the previous one keeps signing for SECRET_ROTATION_GRACE_MS. */
export async function rotateSecret(db: Knex, accountId: string, webhookId: string): Promise<string> {
  const secret = generateWebhookSecret();
  if (!(await rotateWebhookSecret(db, accountId, webhookId, secret, SECRET_ROTATION_GRACE_MS))) throw notFound("Webhook");
  return secret;
}

/**
 * Posts a signed dlr.test receipt now and reports the receiver's answer; nothing is stored. A batched webhook
 * gets it as a batch of one, as its receipts come.
 */
export async function sendTestReceipt(
  db: Knex,
  accountId: string,
  webhookId: string,
  client: ReceiptClient,
  at: Date,
): Promise<{ deliveryId: string; result: PostResult }> {
  const webhook = await getWebhook(db, accountId, webhookId);
  const secrets = webhook && (await getWebhookSecrets(db, accountId, webhookId));
  if (!webhook || !secrets) throw notFound("Webhook");
  const deliveryId = uuidv7();
  const body = JSON.stringify({
    event: "dlr.test",
    timestamp: at.toISOString(),
    messageId: uuidv7(),
    to: "+14155550100",
    status: "delivered",
    providerMessageId: "test",
    reference: null,
    metadata: null,
  });
  const live = secrets.previousSecretExpiresAt && secrets.previousSecretExpiresAt > at ? secrets.previousSecret : null;
  const event = { id: deliveryId, messageId: null, seq: 1, body };
  const [id, sent] = webhook.batch ? [batchId([event]), batchBody([event])] : [deliveryId, body];
  const result = await client.post(webhook.url, sent, receiptHeaders(id, sent, { secret: secrets.secret, previousSecret: live }, at));
  return { deliveryId, result };
}
