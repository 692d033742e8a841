// Receipt signatures. Two schemes, over the exact bytes sent:
// - X-Webhook-Signature: lowercase hex HMAC-SHA256 of the body, keyed with the UTF-8 bytes of the whole
//   secret string `whsec_...` (the service document's scheme);
// - Standard Webhooks: webhook-signature `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the
//   base64-decoded part after `whsec_`, with webhook-id and webhook-timestamp (replay protection).
import { createHmac } from "node:crypto";

export function hexSignature(body: string, secret: string): string {
  return createHmac("sha256", Buffer.from(secret, "utf8")).update(body, "utf8").digest("hex");
}

export function standardSignature(id: string, timestamp: number, body: string, secret: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`, "utf8").digest("base64")}`;
}

export interface SigningSecrets {
  secret: string;
  /** The secret before the last rotation, while its grace period lasts. */
  previousSecret?: string | null;
}

/** Every header of a receipt POST. During a rotation's grace period webhook-signature carries both. */
export function receiptHeaders(deliveryId: string, body: string, secrets: SigningSecrets, now = new Date()): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  const signatures = [secrets.secret, secrets.previousSecret].filter((s): s is string => Boolean(s));
  return {
    "content-type": "application/json",
    "user-agent": "sms-platform-webhooks/1.0",
    "x-webhook-id": deliveryId,
    "x-webhook-signature": hexSignature(body, secrets.secret),
    "webhook-id": deliveryId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signatures.map((s) => standardSignature(deliveryId, timestamp, body, s)).join(" "),
  };
}
