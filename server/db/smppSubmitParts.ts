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

/** Stores a part (a part sent again replaces its text); returns the texts of the parts stored, in order. */
export async function storePart(
  tx: Knex.Transaction,
  k: PartKey,
  part: { seq: number; total: number; body: string; messageId: string; smppId: string | null },
): Promise<string[]> {
  await run(
    tx,
    sql`INSERT INTO smpp_submit_parts (account_id, part_key, seq, total, body, message_id, smpp_id)
        VALUES (${k.accountId}, ${k.key}, ${part.seq}, ${part.total}, ${part.body}, ${part.messageId}, ${part.smppId}::bigint)
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

/** Deletes parts older than `maxAgeMs` (their message never completed); returns how many. */
export async function deleteStaleParts(db: Knex, maxAgeMs: number): Promise<number> {
  const { rows } = await run<{ n: number }>(
    db,
    sql`WITH gone AS (DELETE FROM smpp_submit_parts WHERE created_at < now() - make_interval(secs => ${maxAgeMs / 1000}::float8) RETURNING 1)
        SELECT count(*)::int AS n FROM gone`,
  );
  return rows[0]!.n;
}
