// Time-ordered identifiers (RFC 9562 UUID version 7): 48 bits of Unix milliseconds, then random bits. A new row's
// key lands next to the previous one at the right edge of the primary key, so the index pages being written stay
// in memory however large the table grows; a random (version 4) key touches a random page of the whole index, and
// after each checkpoint writes that page whole to the WAL. The database makes the same ids (the SQL
// function gen_uuid_v7()). The API shape does not change: an id is still an opaque UUID.
import { randomFillSync } from "node:crypto";

const POOL_IDS = 256;
const pool = Buffer.alloc(16 * POOL_IDS);
let next = POOL_IDS;

/** A version-7 UUID for `now` (milliseconds since the epoch). */
export function uuidv7(now = Date.now()): string {
  if (next === POOL_IDS) {
    randomFillSync(pool);
    next = 0;
  }
  const b = pool.subarray(16 * next, 16 * ++next);
  b.writeUIntBE(now, 0, 6);
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
