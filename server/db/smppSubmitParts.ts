// Parts of concatenated submit_sm waiting for the rest (the table smpp_submit_parts, migration 047).
import type { Knex } from "knex";
import { run, sql } from "./sql.js";

export interface PartKey {
  accountId: string;
  /** source, destination, reference and total: the parts of one message share it. */
  key: string;
}

/**
 * Holds the parts of `key` for the transaction: two parts of one message arriving together on two binds (or
 * two processes) are stored one after the other, so exactly one of them finds the message complete.
 */
export async function lockPartKey(tx: Knex.Transaction, k: PartKey): Promise<void> {
  await run(tx, sql`SELECT pg_advisory_xact_lock(hashtextextended(${`${k.accountId} ${k.key}`}, 47))`);
}

/** The id (and short id) the parts of `key` already answer with, if any part is stored. */
export async function partsIdentity(tx: Knex.Transaction, k: PartKey): Promise<{ messageId: string; smppId: string | null } | undefined> {
  const { rows } = await run<{ messageId: string; smppId: string | null }>(
    tx,
    sql`SELECT message_id AS "messageId", smpp_id::text AS "smppId" FROM smpp_submit_parts
         WHERE account_id = ${k.accountId} AND part_key = ${k.key} LIMIT 1`,
  );
  return rows[0];
}

/** Holds the account's count of incomplete messages for the transaction (taken after a part key's lock). */
export async function lockOpenParts(tx: Knex.Transaction, accountId: string): Promise<void> {
  await run(tx, sql`SELECT pg_advisory_xact_lock(hashtextextended(${accountId}, 4747))`);
}

/** How many incomplete messages the account has parts of. */
export async function openPartMessages(tx: Knex.Transaction, accountId: string): Promise<number> {
  const { rows } = await run<{ n: number }>(
    tx,
    sql`SELECT count(DISTINCT part_key)::int AS n FROM smpp_submit_parts WHERE account_id = ${accountId}`,
  );
  return rows[0]!.n;
}

/** The texts of the parts of `key` stored, but part `exceptSeq` (which is being sent again, or for the first time). */
export async function partBodies(tx: Knex.Transaction, k: PartKey, exceptSeq: number): Promise<string[]> {
  const { rows } = await run<{ body: string }>(
    tx,
    sql`SELECT body FROM smpp_submit_parts WHERE account_id = ${k.accountId} AND part_key = ${k.key} AND seq <> ${exceptSeq} ORDER BY seq`,
  );
  return rows.map((r) => r.body);
}

/** Stores a part (a part sent again replaces its text); returns the texts of the parts stored, in order. */
export async function storePart(
  tx: Knex.Transaction,
  k: PartKey,
  part: {
    seq: number;
    total: number;
    body: string;
    messageId: string;
    smppId: string | null;
    /** The id format of the receipt its submit asked for, or null. */
    receipt: "uuid" | "hex" | "decimal" | null;
    sender: string;
    recipient: string;
  },
): Promise<string[]> {
  await run(
    tx,
    sql`INSERT INTO smpp_submit_parts (account_id, part_key, seq, total, body, message_id, smpp_id, receipt, sender, recipient)
        VALUES (${k.accountId}, ${k.key}, ${part.seq}, ${part.total}, ${part.body}, ${part.messageId}, ${part.smppId}::bigint,
                ${part.receipt}::text, ${part.sender}, ${part.recipient})
        ON CONFLICT (account_id, part_key, seq) DO UPDATE SET body = EXCLUDED.body`,
  );
  const { rows } = await run<{ body: string }>(
    tx,
    sql`SELECT body FROM smpp_submit_parts WHERE account_id = ${k.accountId} AND part_key = ${k.key} ORDER BY seq`,
  );
  return rows.map((r) => r.body);
}

export async function deleteParts(tx: Knex.Transaction, k: PartKey): Promise<void> {
  await run(tx, sql`DELETE FROM smpp_submit_parts WHERE account_id = ${k.accountId} AND part_key = ${k.key}`);
}

/**
 * Deletes the parts of messages whose first part came more than `maxAgeMs` ago (they never completed), and
 * writes for each such message whose submit asked for a receipt an undelivered one to smpp_outbox, naming the
 * id its parts were answered with. Returns how many parts were deleted.
 */
export async function expireStaleParts(db: Knex, maxAgeMs: number): Promise<number> {
  const { rows } = await run<{ n: number }>(
    db,
    sql`WITH stale AS (
          SELECT account_id, part_key FROM smpp_submit_parts GROUP BY 1, 2
          HAVING min(created_at) < now() - make_interval(secs => ${maxAgeMs / 1000}::float8)
        ), gone AS (
          DELETE FROM smpp_submit_parts p USING stale s WHERE p.account_id = s.account_id AND p.part_key = s.part_key
          RETURNING p.account_id, p.part_key, p.message_id, p.smpp_id, p.receipt, p.sender, p.recipient
        ), told AS (
          INSERT INTO smpp_outbox (account_id, message_id, kind, status, error_code, receipt_id, sender, recipient)
          SELECT DISTINCT ON (account_id, part_key) account_id, message_id, 'receipt', 'undelivered', 'incomplete_message',
                 CASE receipt WHEN 'uuid' THEN message_id::text WHEN 'hex' THEN to_hex(smpp_id) ELSE smpp_id::text END,
                 sender, recipient
            FROM gone WHERE receipt IS NOT NULL
          RETURNING 1
        )
        SELECT (SELECT count(*) FROM gone)::int AS n`,
  );
  return rows[0]!.n;
}
