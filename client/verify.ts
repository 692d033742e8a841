// Verifying a delivery receipt on the receiving side. Receivers must verify every receipt (service document
// §5.4). Pass the raw request body exactly as received (not re-serialised JSON) and the request headers.
//
// The Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) are required: they are
// checked, including the timestamp's age (replay protection), and any of the listed signatures may match:
// during a secret rotation the service signs with the old and the new secret. The X-Webhook-Signature header
// (hex HMAC-SHA256 of the body alone) carries no time, so a receipt captured once would verify for ever: it is
// checked only when the caller asks for it (`allowLegacySignature`), and only when the timestamped headers are
// absent.
import { createHmac, timingSafeEqual } from "node:crypto";

export type ReceiptHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Oldest acceptable webhook-timestamp, in seconds from now (default 300). */
  toleranceSeconds?: number;
  /**
   * Accept a receipt without the timestamped headers on X-Webhook-Signature alone (default false). That
   * signature has no time in it: a captured receipt replays for ever. Only for a receiver that cannot read the
   * webhook-* headers (a proxy strips them).
   */
  allowLegacySignature?: boolean;
  now?: Date;
}

function header(headers: ReceiptHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** True when the receipt was signed with `secret` (or one of `secret`s, e.g. old and new while rotating). */
export function verifyReceipt(
  rawBody: string | Uint8Array,
  headers: ReceiptHeaders,
  secret: string | string[],
  opts: VerifyOptions = {},
): boolean {
  const body = typeof rawBody === "string" ? rawBody : Buffer.from(rawBody).toString("utf8");
  const secrets = Array.isArray(secret) ? secret : [secret];
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (id && timestamp && signatures) {
    const sentAt = Number(timestamp);
    const now = Math.floor((opts.now ?? new Date()).getTime() / 1000);
    if (!Number.isInteger(sentAt) || Math.abs(now - sentAt) > (opts.toleranceSeconds ?? 300)) return false;
    const presented = signatures
      .split(" ")
      .filter((s) => s.startsWith("v1,"))
      .map((s) => s.slice(3));
    return secrets.some((s) => {
      const key = Buffer.from(s.replace(/^whsec_/, ""), "base64");
      const expected = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`, "utf8").digest("base64");
      return presented.some((p) => equal(p, expected));
    });
  }
  const hex = header(headers, "x-webhook-signature");
  if (!hex || opts.allowLegacySignature !== true) return false;
  return secrets.some((s) => equal(hex.toLowerCase(), createHmac("sha256", Buffer.from(s, "utf8")).update(body, "utf8").digest("hex")));
}
