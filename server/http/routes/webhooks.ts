import { listDeliveries, redeliver, type DeliveryRow } from "../../db/webhookDeliveries.js";
import { deleteWebhook, enableWebhook, getWebhook, getWebhookSecrets, listWebhooks } from "../../db/webhooks.js";
import { fetchPage } from "../../domain/cursor.js";
import { notFound } from "../../domain/errors.js";
import { changeWebhook, createWebhook, rotateSecret, sendTestReceipt } from "../../services/webhooks.js";
import { iso, toWebhook } from "../serialize.js";
import type { Handlers } from "../types.js";

export { SECRET_ROTATION_GRACE_MS } from "../../services/webhooks.js";

export const webhookHandlers: Pick<
  Handlers,
  | "Webhooks_create"
  | "Webhooks_list"
  | "Webhooks_get"
  | "Webhooks_update"
  | "Webhooks_delete"
  | "Webhooks_enable"
  | "Webhooks_getSecret"
  | "Webhooks_rotateSecret"
  | "Webhooks_listDeliveries"
  | "Webhooks_redeliver"
  | "Webhooks_test"
> = {
  async Webhooks_create({ db, account, body, config, resolver }) {
    const { webhook, secret } = await createWebhook(db, account.id, body, {
      allowPrivate: config.webhookAllowPrivate,
      resolver,
      maxPerAccount: config.maxWebhooksPerAccount,
    });
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

  async Webhooks_update({ db, account, path, body, config, resolver }) {
    const webhook = await changeWebhook(db, account.id, path.webhookId, body, { allowPrivate: config.webhookAllowPrivate, resolver });
    return { status: 200, body: toWebhook(webhook) };
  },

  async Webhooks_delete({ db, account, path }) {
    if (!(await deleteWebhook(db, account.id, path.webhookId))) throw notFound("Webhook");
    return { status: 204 };
  },

  async Webhooks_enable({ db, account, path }) {
    if (!(await enableWebhook(db, account.id, path.webhookId))) throw notFound("Webhook");
    return { status: 200, body: toWebhook((await getWebhook(db, account.id, path.webhookId))!) };
  },

  async Webhooks_getSecret({ db, account, path }) {
    const secrets = await getWebhookSecrets(db, account.id, path.webhookId);
    if (!secrets) throw notFound("Webhook");
    return { status: 200, body: { secret: secrets.secret } };
  },

  async Webhooks_rotateSecret({ db, account, path }) {
    return { status: 200, body: { secret: await rotateSecret(db, account.id, path.webhookId) } };
  },

  async Webhooks_listDeliveries({ db, account, path, query }) {
    if (!(await getWebhook(db, account.id, path.webhookId))) throw notFound("Webhook");
    const { items, nextCursor } = await fetchPage(query, (w) =>
      listDeliveries(db, account.id, path.webhookId, {
        messageId: query.messageId,
        status: query.status,
        ...w,
      }),
    );
    return { status: 200, body: { data: items.map(toDelivery), nextCursor } };
  },

  async Webhooks_redeliver({ db, account, path }) {
    if (!(await getWebhook(db, account.id, path.webhookId))) throw notFound("Webhook");
    // The delivery as the redelivery left it (pending): a worker may have posted it again by now.
    const queued = await redeliver(db, account.id, path.webhookId, path.deliveryId);
    if (!queued) throw notFound("Delivery");
    return { status: 202, body: toDelivery(queued) };
  },

  async Webhooks_test({ db, account, path, receipts, now }) {
    const at = now();
    const { deliveryId, result } = await sendTestReceipt(db, account.id, path.webhookId, receipts, at);
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
    messageId: row.messageId,
    event: row.event,
    status: row.status,
    attempts: row.attempts,
    createdAt: iso(row.createdAt),
  };
}
