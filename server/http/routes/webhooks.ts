import {
  deleteWebhook,
  getWebhook,
  getWebhookSecrets,
  insertWebhook,
  listWebhooks,
  rotateWebhookSecret,
} from "../../db/webhooks.js";
import { randomUUID } from "node:crypto";
import { getDelivery, listDeliveries, redeliver, type DeliveryRow } from "../../db/webhookDeliveries.js";
import { fetchPage } from "../../domain/cursor.js";
import { invalidField, notFound } from "../../domain/errors.js";
import { receiptHeaders } from "../../webhooks/signing.js";
import { generateWebhookSecret } from "../../domain/webhookSecrets.js";
import { webhookUrlProblem } from "../../webhooks/urlPolicy.js";
import { iso, toWebhook } from "../serialize.js";
import type { Handlers } from "../types.js";

/** After a rotation the old secret still signs receipts, alongside the new one, for this long. */
export const SECRET_ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;


export const webhookHandlers: Pick<
  Handlers,
  | "Webhooks_create"
  | "Webhooks_list"
  | "Webhooks_get"
  | "Webhooks_delete"
  | "Webhooks_getSecret"
  | "Webhooks_rotateSecret"
  | "Webhooks_listDeliveries"
  | "Webhooks_redeliver"
  | "Webhooks_test"
> = {
  async Webhooks_create({ db, account, body, config, resolver }) {
    const problem = await webhookUrlProblem(body.url, config.webhookAllowPrivate, resolver);
    if (problem) throw invalidField("/body/url", problem);
    const secret = generateWebhookSecret();
    const webhook = await insertWebhook(db, account.id, { name: body.name, url: body.url, secret });
    return { status: 201, body: { ...toWebhook(webhook), secret } };
  },

  async Webhooks_list({ db, account }) {
    return { status: 200, body: { data: (await listWebhooks(db, account.id)).map(toWebhook) } };
  },

  async Webhooks_get({ db, account, path }) {
    const webhook = await getWebhook(db, account.id, path.webhookId);
    if (!webhook) throw notFound("Webhook");
    return { status: 200, body: toWebhook(webhook) };
  },

  async Webhooks_delete({ db, account, path }) {
    if (!(await deleteWebhook(db, account.id, path.webhookId))) throw notFound("Webhook");
    return { status: 204 };
  },

  async Webhooks_getSecret({ db, account, path }) {
    const secrets = await getWebhookSecrets(db, account.id, path.webhookId);
    if (!secrets) throw notFound("Webhook");
    return { status: 200, body: { secret: secrets.secret } };
  },

  async Webhooks_rotateSecret({ db, account, path }) {
    const secret = generateWebhookSecret();
    if (!(await rotateWebhookSecret(db, account.id, path.webhookId, secret, SECRET_ROTATION_GRACE_MS))) throw notFound("Webhook");
    return { status: 200, body: { secret } };
  },

  async Webhooks_listDeliveries({ db, account, path, query }) {
    if (!(await getWebhook(db, account.id, path.webhookId))) throw notFound("Webhook");
    const { items, nextCursor } = await fetchPage(query, (w) =>
      listDeliveries(db, path.webhookId, {
        messageId: query.messageId,
        status: query.status,
        ...w,
      }),
    );
    return { status: 200, body: { data: items.map(toDelivery), nextCursor } };
  },

  async Webhooks_redeliver({ db, account, path }) {
    if (!(await getWebhook(db, account.id, path.webhookId))) throw notFound("Webhook");
    if (!(await redeliver(db, path.webhookId, path.deliveryId))) throw notFound("Delivery");
    return { status: 202, body: toDelivery((await getDelivery(db, path.webhookId, path.deliveryId))!) };
  },

  async Webhooks_test({ db, account, path, receipts, now }) {
    const webhook = await getWebhook(db, account.id, path.webhookId);
    const secrets = webhook && (await getWebhookSecrets(db, account.id, path.webhookId));
    if (!webhook || !secrets) throw notFound("Webhook");
    const at = now();
    const deliveryId = randomUUID();
    const body = JSON.stringify({
      event: "dlr.test",
      timestamp: iso(at),
      messageId: randomUUID(),
      to: "+14155550100",
      status: "delivered",
      providerMessageId: "test",
    });
    const live = secrets.previousSecretExpiresAt && secrets.previousSecretExpiresAt > at ? secrets.previousSecret : null;
    const result = await receipts.post(webhook.url, body, receiptHeaders(deliveryId, body, { secret: secrets.secret, previousSecret: live }, at));
    return {
      status: 200,
      body: {
        succeeded: result.error === null,
        deliveryId,
        attempt: { at: iso(at), responseStatus: result.status, error: result.error, durationMs: result.durationMs },
      },
    };
  },
};

function toDelivery(row: DeliveryRow) {
  return {
    deliveryId: row.id,
    messageId: row.messageId!,
    event: row.event,
    status: row.status,
    attempts: row.attempts,
    createdAt: iso(row.createdAt),
  };
}
