// Parts of long inbound messages (the table inbound_parts) until the last one arrives or the reassembly timeout ends
// the wait. Every function that reads or changes a message's parts first takes that message's advisory lock
// for the rest of its transaction: two workers that receive the last two parts at once (two sessions) take
// turns, so the second always sees the first's part and exactly one of them assembles the message.
import type { Knex } from "knex";
import { run, sql, type Sql } from "./sql.js";
import type { Encoding } from "../../common/segments.js";

/** What identifies one long message's parts, as the carrier numbers them. */
export interface PartKey {
  from: string;
  to: string;
  reference: number;
  total: number;
}

export interface InboundPart extends PartKey {
  seq: number;
  body: string;
  encoding: Encoding;
}

export interface StoredPart {
  seq: number;
  body: string;
  encoding: Encoding;
  receivedAt: Date;
}

async function lockMessage(tx: Knex.Transaction, key: PartKey): Promise<void> {
  await run(
    tx,
    sql`SELECT pg_advisory_xact_lock(hashtextextended(${JSON.stringify(["inbound_parts", key.from, key.to, key.reference, key.total])}, 0))`,
  );
}

const keyWhere = (key: PartKey) => ({ sender: key.from, recipient: key.to, reference: key.reference, total: key.total });
const olderThan = (column: string, ms: number): Sql => sql`${sql.raw(column)} < now() - make_interval(secs => ${ms / 1000})`;

/**
 * Stores one part; false when it repeats a part already stored (then nothing changed). With the part that
 * completes its message, returns every part in order, marked assembled: the caller stores the message in the
 * same transaction. A message stored more than `keepMs` ago no longer holds its key (the carrier reuses references).
 */
export async function storePart(
  tx: Knex.Transaction,
  part: InboundPart,
  keepMs: number,
): Promise<{ stored: boolean; complete?: StoredPart[] }> {
  await lockMessage(tx, part);
  await tx("inbound_parts").where(keyWhere(part)).where(olderThan("assembled_at", keepMs).forBuilder(tx)).delete();
  const inserted = await tx("inbound_parts")
    .insert({ ...keyWhere(part), seq: part.seq, body: part.body, encoding: part.encoding })
    .onConflict(["sender", "recipient", "reference", "total", "seq"])
    .ignore()
    .returning("seq");
  if (inserted.length === 0) return { stored: false };
  const { count } = (await tx("inbound_parts").where(keyWhere(part)).whereNull("assembled_at").count({ count: "*" }).first()) as {
    count: string;
  };
  if (Number(count) < part.total) return { stored: true };
  return { stored: true, complete: await takeParts(tx, part) };
}

/** Marks a message's waiting parts assembled and returns them in order (none when another transaction took them). */
export async function takeParts(tx: Knex.Transaction, key: PartKey): Promise<StoredPart[]> {
  await lockMessage(tx, key);
  const { rows } = await tx.raw<{ rows: { seq: number; body: string; encoding: Encoding; received_at: Date }[] }>(
    `WITH taken AS (
       SELECT seq, body FROM inbound_parts
        WHERE sender = ? AND recipient = ? AND reference = ? AND total = ? AND assembled_at IS NULL
     )
     UPDATE inbound_parts p SET assembled_at = now(), body = ''
       FROM taken WHERE p.sender = ? AND p.recipient = ? AND p.reference = ? AND p.total = ? AND p.seq = taken.seq
     RETURNING p.seq, taken.body, p.encoding, p.received_at`,
    [key.from, key.to, key.reference, key.total, key.from, key.to, key.reference, key.total],
  );
  return rows.sort((a, b) => a.seq - b.seq).map((r) => ({ seq: r.seq, body: r.body, encoding: r.encoding, receivedAt: r.received_at }));
}

/** Messages whose first part arrived more than `timeoutMs` ago and that are still incomplete. */
export async function expiredPartKeys(db: Knex, timeoutMs: number, limit = 1000): Promise<PartKey[]> {
  const rows = (await db("inbound_parts")
    .whereNull("assembled_at")
    .select("sender", "recipient", "reference", "total")
    .groupBy("sender", "recipient", "reference", "total")
    .having(olderThan("min(received_at)", timeoutMs).forBuilder(db))
    .limit(limit)) as { sender: string; recipient: string; reference: number; total: number }[];
  return rows.map((r) => ({ from: r.sender, to: r.recipient, reference: r.reference, total: r.total }));
}

/** Forgets the keys of messages stored more than `keepMs` ago; returns how many parts. */
export async function deleteAssembledParts(db: Knex, keepMs: number): Promise<number> {
  return db("inbound_parts").where(olderThan("assembled_at", keepMs).forBuilder(db)).delete();
}
