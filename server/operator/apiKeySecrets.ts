import { createHash, randomInt, timingSafeEqual } from "node:crypto";

// Key format sms_<keyId>_<secret>: keyId 12 base62 characters (public, the lookup key), secret 32 base62
// characters (~190 bits). Only SHA-256(secret) is stored: with that much entropy a slow hash adds nothing
// but latency on every request.
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const KEY_FORMAT = /^sms_([0-9A-Za-z]{12})_([0-9A-Za-z]{32})$/;

function base62(length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += BASE62[randomInt(62)];
  return out;
}

export interface NewApiKey {
  key: string;
  keyId: string;
  secretHash: Buffer;
}

export function hashSecret(secret: string): Buffer {
  return createHash("sha256").update(secret, "utf8").digest();
}

export function generateApiKey(): NewApiKey {
  const keyId = base62(12);
  const secret = base62(32);
  return { key: `sms_${keyId}_${secret}`, keyId, secretHash: hashSecret(secret) };
}

export function parseApiKey(key: string): { keyId: string; secret: string } | undefined {
  const match = KEY_FORMAT.exec(key);
  return match ? { keyId: match[1]!, secret: match[2]! } : undefined;
}

/** Constant-time comparison of a presented secret's hash with the stored one. */
export function secretHashMatches(presented: Buffer, stored: Buffer): boolean {
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
