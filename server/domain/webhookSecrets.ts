import { randomBytes } from "node:crypto";

/** `whsec_` + base64 of 32 random bytes: the Standard Webhooks secret format. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}
