// Sender pools and their books (migration 033; docs/ROUTING.md, "Sender pools"): the account's pools, and per
// account and sender when it was last chosen and its cap's tat, which the send path locks while it chooses.
import type { Knex } from "knex";
import { run, sql } from "../db/sql.js";
import { readClock } from "../db/throughputBuckets.js";

export interface SenderPoolRow {
  id: string;
  accountId: string;
  name: string;
  senders: string[];
  sticky: boolean;
  maxPerSenderPerSecond: number | null;
  createdAt: Date;
}

export interface SenderPoolFields {
  name: string;
  senders: string[];
  sticky: boolean;
  maxPerSenderPerSecond: number | null;
}

const COLUMNS = sql`id, account_id AS "accountId", name, senders, sticky, max_per_sender_per_second AS "maxPerSenderPerSecond",
                    created_at AS "createdAt"`;

/** Inserts a pool; undefined when the account has one of that name. */
export async function insertSenderPool(db: Knex, accountId: string, p: SenderPoolFields): Promise<SenderPoolRow | undefined> {
  const { rows } = await run<SenderPoolRow>(
    db,
    sql`INSERT INTO sender_pools (account_id, name, senders, sticky, max_per_sender_per_second)
        VALUES (${accountId}, ${p.name}, ${p.senders}::text[], ${p.sticky}, ${p.maxPerSenderPerSecond})
        ON CONFLICT (account_id, name) DO NOTHING RETURNING ${COLUMNS}`,
  );
  return rows[0];
}

export async function listSenderPools(db: Knex, accountId: string): Promise<SenderPoolRow[]> {
  const { rows } = await run<SenderPoolRow>(db, sql`SELECT ${COLUMNS} FROM sender_pools WHERE account_id = ${accountId} ORDER BY id`);
  return rows;
}

export async function getSenderPool(db: Knex, accountId: string, id: string): Promise<SenderPoolRow | undefined> {
  const { rows } = await run<SenderPoolRow>(db, sql`SELECT ${COLUMNS} FROM sender_pools WHERE account_id = ${accountId} AND id = ${id}`);
  return rows[0];
}

export async function updateSenderPool(db: Knex, accountId: string, id: string, p: SenderPoolFields): Promise<SenderPoolRow | undefined> {
  const { rows } = await run<SenderPoolRow>(
    db,
    sql`UPDATE sender_pools SET name = ${p.name}, senders = ${p.senders}::text[], sticky = ${p.sticky},
               max_per_sender_per_second = ${p.maxPerSenderPerSecond}, updated_at = now()
         WHERE account_id = ${accountId} AND id = ${id} RETURNING ${COLUMNS}`,
  );
  return rows[0];
}

export async function deleteSenderPool(db: Knex, accountId: string, id: string): Promise<boolean> {
  const { rowCount } = await run(db, sql`DELETE FROM sender_pools WHERE account_id = ${accountId} AND id = ${id}`);
  return (rowCount ?? 0) > 0;
}

/** The pools of these ids (each with its account), those that still exist. */
export async function readSenderPools(db: Knex, keys: { id: string; accountId: string }[]): Promise<SenderPoolRow[]> {
  if (keys.length === 0) return [];
  const { rows } = await run<SenderPoolRow>(
    db,
    sql`SELECT ${COLUMNS} FROM sender_pools p
         WHERE (p.account_id, p.id) IN (SELECT * FROM unnest(${keys.map((k) => k.accountId)}::uuid[], ${keys.map((k) => k.id)}::uuid[]))`,
  );
  return rows;
}

/**
 * For each (account, recipient, senders): the sender of the account's newest message to the recipient that went
 * out as one of `senders` (sticky senders), when there is one. Through the recipient page index.
 */
export async function lastSendersTo(
  db: Knex,
  asks: { accountId: string; recipient: string; senders: string[] }[],
): Promise<{ accountId: string; recipient: string; sender: string }[]> {
  if (asks.length === 0) return [];
  const { rows } = await run<{ accountId: string; recipient: string; sender: string }>(
    db,
    sql`SELECT q."accountId", q.recipient, last.sender
          FROM jsonb_to_recordset(${JSON.stringify(asks)}::jsonb) AS q("accountId" uuid, recipient text, senders text[])
          CROSS JOIN LATERAL (
            SELECT m.sender FROM messages m
             WHERE m.account_id = q."accountId" AND m.recipient = q.recipient AND m.direction = 'outbound'
               AND m.sender = ANY(q.senders)
             ORDER BY m.created_at DESC, m.id DESC LIMIT 1
          ) last`,
  );
  return rows;
}

export interface SenderBook {
  accountId: string;
  sender: string;
  /** When it was last chosen, seconds since the epoch (0: never). */
  lastUsed: number;
  /**
   * Its cap's theoretical arrival time, seconds since the epoch: the release before this one's only record of
   * it, kept in step with the sender's bucket (routing/senderPools.ts) until the release after drops it.
   */
  tat: number;
}

/**
 * Locks the books of these senders for the transaction (made, empty, when new), in key order so two choosers
 * never wait on each other crosswise, with the E.164 senders the account no longer holds left out. Returns the
 * books and the database's clock.
 */
export async function lockSenderBooks(
  tx: Knex.Transaction,
  keys: { accountId: string; sender: string }[],
): Promise<{ now: number; books: SenderBook[] }> {
  const sorted = [...new Map(keys.map((k) => [`${k.accountId} ${k.sender}`, k])).values()].sort((a, b) =>
    `${a.accountId} ${a.sender}` < `${b.accountId} ${b.sender}` ? -1 : 1,
  );
  const accounts = sorted.map((k) => k.accountId);
  const senders = sorted.map((k) => k.sender);
  await run(
    tx,
    sql`INSERT INTO sender_books (account_id, sender)
        SELECT * FROM unnest(${accounts}::uuid[], ${senders}::text[]) ORDER BY 1, 2 ON CONFLICT DO NOTHING`,
  );
  const { rows } = await run<SenderBook & { now: number }>(
    tx,
    sql`SELECT b.account_id AS "accountId", b.sender, b.last_used AS "lastUsed", b.tat,
               EXTRACT(EPOCH FROM clock_timestamp())::float8 AS now
          FROM sender_books b
         WHERE (b.account_id, b.sender) IN (SELECT * FROM unnest(${accounts}::uuid[], ${senders}::text[]))
           AND (left(b.sender, 1) <> '+' OR EXISTS (SELECT FROM numbers n WHERE n.account_id = b.account_id AND n.phone_number = b.sender))
         ORDER BY b.account_id, b.sender FOR UPDATE OF b`,
  );
  const now = rows[0]?.now ?? (await readClock(tx));
  return { now, books: rows.map(({ now: _now, ...b }) => b) };
}

/** The books of these senders of one account as they are, unlocked (a sender never chosen: empty), held ones only. */
export async function readSenderBooks(db: Knex, accountId: string, senders: string[]): Promise<{ now: number; books: SenderBook[] }> {
  const { rows } = await run<SenderBook & { now: number }>(
    db,
    sql`SELECT ${accountId}::uuid AS "accountId", k.sender, coalesce(b.last_used, 0) AS "lastUsed", coalesce(b.tat, 0) AS tat,
               EXTRACT(EPOCH FROM clock_timestamp())::float8 AS now
          FROM unnest(${senders}::text[]) AS k(sender)
          LEFT JOIN sender_books b ON b.account_id = ${accountId} AND b.sender = k.sender
         WHERE left(k.sender, 1) <> '+' OR EXISTS (SELECT FROM numbers n WHERE n.account_id = ${accountId} AND n.phone_number = k.sender)`,
  );
  const now = rows[0]?.now ?? Date.now() / 1000;
  return { now, books: rows.map(({ now: _now, ...b }) => b) };
}

export async function updateSenderBooks(tx: Knex.Transaction, books: SenderBook[]): Promise<void> {
  if (books.length === 0) return;
  await run(
    tx,
    sql`UPDATE sender_books b SET last_used = u."lastUsed", tat = u.tat
          FROM jsonb_to_recordset(${JSON.stringify(books)}::jsonb) AS u("accountId" uuid, sender text, "lastUsed" float8, tat float8)
         WHERE b.account_id = u."accountId" AND b.sender = u.sender`,
  );
}

/** The senders chosen for messages of pools (their `from` from then on). */
export async function setMessageSenders(db: Knex, chosen: { id: string; accountId: string; sender: string }[]): Promise<void> {
  if (chosen.length === 0) return;
  await run(
    db,
    sql`UPDATE messages m SET sender = c.sender
          FROM jsonb_to_recordset(${JSON.stringify(chosen)}::jsonb) AS c(id uuid, "accountId" uuid, sender text)
         WHERE m.account_id = c."accountId" AND m.id = c.id`,
  );
}
