// Parts of long inbound messages (migration 012) until the last one arrives or the reassembly timeout ends
// the wait. Every function that reads or deletes a message's parts first takes that message's advisory lock
// for the rest of its transaction: two workers that receive the last two parts at once (two sessions) take
// turns, so the second always sees the first's part and exactly one of them assembles the message.
import type { Knex } from "knex";
import type { Encoding } from "../domain/segments.js";

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
  await tx.raw("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", [
    ["inbound_parts", key.from, key.to, key.reference, key.total].join("\u0000"),
  ]);
}

const keyWhere = (key: PartKey) => ({ sender: key.from, recipient: key.to, reference: key.reference, total: key.total });

/**
 * Stores one part; false when it was a repeat (then nothing changed). Returns, with the part that completes
 * its message, every part in order, deleted: the caller stores the message in the same transaction.
 */
export async function storePart(tx: Knex.Transaction, part: InboundPart): Promise<{ stored: boolean; complete?: StoredPart[] }> {
  await lockMessage(tx, part);
  const inserted = await tx("inbound_parts")
    .insert({ ...keyWhere(part), seq: part.seq, body: part.body, encoding: part.encoding })
    .onConflict(["sender", "recipient", "reference", "total", "seq"])
    .ignore()
    .returning("seq");
  if (inserted.length === 0) return { stored: false };
  const { count } = (await tx("inbound_parts").where(keyWhere(part)).count({ count: "*" }).first()) as { count: string };
  if (Number(count) < part.total) return { stored: true };
  return { stored: true, complete: await takeParts(tx, part) };
}

/** Deletes and returns a message's parts (in order; none when another transaction took them first). */
export async function takeParts(tx: Knex.Transaction, key: PartKey): Promise<StoredPart[]> {
  await lockMessage(tx, key);
  const rows = (await tx("inbound_parts")
    .where(keyWhere(key))
    .delete()
    .returning(["seq", "body", "encoding", "received_at"])) as { seq: number; body: string; encoding: Encoding; received_at: Date }[];
  return rows.sort((a, b) => a.seq - b.seq).map((r) => ({ seq: r.seq, body: r.body, encoding: r.encoding, receivedAt: r.received_at }));
}

/** Messages whose first part arrived more than `timeoutMs` ago and that are still incomplete. */
export async function expiredPartKeys(db: Knex, timeoutMs: number, limit = 1000): Promise<PartKey[]> {
  const rows = (await db("inbound_parts")
    .select("sender", "recipient", "reference", "total")
    .groupBy("sender", "recipient", "reference", "total")
    .havingRaw("min(received_at) < now() - make_interval(secs => ?)", [timeoutMs / 1000])
    .limit(limit)) as { sender: string; recipient: string; reference: number; total: number }[];
  return rows.map((r) => ({ from: r.sender, to: r.recipient, reference: r.reference, total: r.total }));
}
