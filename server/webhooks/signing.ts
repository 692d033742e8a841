// Receipt signatures. Two schemes, over the exact bytes sent:
// - X-Webhook-Signature: lowercase hex HMAC-SHA256 of the body, keyed with the UTF-8 bytes of the whole
//   secret string `whsec_...` (the service document's scheme);
// - Standard Webhooks: webhook-signature `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the
//   base64-decoded part after `whsec_`, with webhook-id and webhook-timestamp (replay protection).
import { createHmac, createSecretKey, type KeyObject } from "node:crypto";

/** A secret's two HMAC keys, made once: decoding and wrapping them on every receipt cost more than the HMACs. */
interface SigningKeys {
  hex: KeyObject;
  standard: KeyObject;
}

/** Keys by secret. Webhooks are few (a limit per account); the map is emptied if it ever grows past this. */
const MAX_CACHED_SECRETS = 10_000;
const keysBySecret = new Map<string, SigningKeys>();

function keysOf(secret: string): SigningKeys {
  let keys = keysBySecret.get(secret);
  if (!keys) {
    if (keysBySecret.size >= MAX_CACHED_SECRETS) keysBySecret.clear();
    keys = {
      hex: createSecretKey(Buffer.from(secret, "utf8")),
      standard: createSecretKey(Buffer.from(secret.replace(/^whsec_/, ""), "base64")),
    };
    keysBySecret.set(secret, keys);
  }
  return keys;
}

export function hexSignature(body: string, secret: string): string {
  return createHmac("sha256", keysOf(secret).hex).update(body, "utf8").digest("hex");
}

export function standardSignature(id: string, timestamp: number, body: string, secret: string): string {
  return `v1,${createHmac("sha256", keysOf(secret).standard).update(`${id}.${timestamp}.${body}`, "utf8").digest("base64")}`;
}

export interface SigningSecrets {
  secret: string;
  /** The secret before the last rotation, while its grace period lasts. */
  previousSecret?: string | null;
}

/** Every header of a receipt POST. During a rotation's grace period webhook-signature carries both. */
export function receiptHeaders(deliveryId: string, body: string, secrets: SigningSecrets, now = new Date()): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  const standard = standardSignature(deliveryId, timestamp, body, secrets.secret);
  return {
    "content-type": "application/json",
    "user-agent": "sms-platform-webhooks/1.0",
    "x-webhook-id": deliveryId,
    "x-webhook-signature": hexSignature(body, secrets.secret),
    "webhook-id": deliveryId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": secrets.previousSecret
      ? `${standard} ${standardSignature(deliveryId, timestamp, body, secrets.previousSecret)}`
      : standard,
  };
}
