// SMPP passwords: at most 8 characters (SMPP 3.4), so guessable offline from a fast hash; each is stored as
// scrypt (Node's own, N = 2^14, r = 8, p = 1: about 30 ms on the 2-core machine, once per bind) with a random
// salt, as `scrypt$<salt>$<hash>` in base64. A bind with an unknown system_id is checked against a decoy
// hash, so it costs what a wrong password does (the two are indistinguishable, in their answer and in time).
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";

const derive = promisify(scrypt) as (password: string, salt: Buffer, length: number) => Promise<Buffer>;
const LENGTH = 32;

export async function hashSmppPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, LENGTH);
  return `scrypt$${salt.toString("base64")}$${hash.toString("base64")}`;
}

/** A stored hash no password matches, to check an unknown system_id's bind against. */
const DECOY = `scrypt$${randomBytes(16).toString("base64")}$${randomBytes(LENGTH).toString("base64")}`;

/** Whether `password` matches `stored` (or, with none stored, as long as a real check: always false). */
export async function smppPasswordMatches(password: string, stored: string | undefined): Promise<boolean> {
  const [, salt, hash] = (stored ?? DECOY).split("$");
  const presented = await derive(password, Buffer.from(salt!, "base64"), LENGTH);
  const expected = Buffer.from(hash!, "base64");
  return stored !== undefined && presented.length === expected.length && timingSafeEqual(presented, expected);
}
