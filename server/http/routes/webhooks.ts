import {
  deleteWebhook,
  getWebhook,
  getWebhookSecrets,
  insertWebhook,
  listWebhooks,
  rotateWebhookSecret,
} from "../../db/webhooks.js";
import { ApiError, invalidField, notFound } from "../../domain/errors.js";
import { generateWebhookSecret } from "../../domain/webhookSecrets.js";
import { webhookUrlProblem } from "../../webhooks/urlPolicy.js";
import { toWebhook } from "../serialize.js";
import type { Handlers } from "../types.js";

/** After a rotation the old secret still signs receipts, alongside the new one, for this long. */
export const SECRET_ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

const notYet = () => new ApiError(501, "not_implemented", "The delivery log is not available on this server yet.");

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
> = {
  async Webhooks_create({ db, account, body, config }) {
    const problem = await webhookUrlProblem(body.url, config.webhookAllowPrivate);
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

  async Webhooks_listDeliveries({ db, account, path }) {
    if (!(await getWebhook(db, account.id, path.webhookId))) throw notFound("Webhook");
    throw notYet();
  },

  async Webhooks_redeliver({ db, account, path }) {
    if (!(await getWebhook(db, account.id, path.webhookId))) throw notFound("Webhook");
    throw notYet();
  },
};
