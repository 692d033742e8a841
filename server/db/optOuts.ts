import { MESSAGE_FACTS_SQL, type MessageFactsRow } from "./messages/rows.js";
import type { Knex } from "knex";
import type { CursorKey } from "../domain/cursor.js";
import { cursorAtColumn, newestFirstPage } from "./newestFirstPage.js";
import { byAccountKeysSql, statusInSql } from "./byIdFilters.js";
import { run, sql, type Sql } from "./sql.js";

export interface OptOutRow {
  id: string;
  phone: string;
  source: "keyword" | "api";
  keyword: string | null;
  messageId: string | null;
  createdAt: Date;
}

const columns = ["id", "phone", "source", "keyword", "message_id as messageId", "created_at as createdAt"];

export async function getOptOut(db: Knex, accountId: string, phone: string): Promise<OptOutRow | undefined> {
  return db("opt_outs").where({ account_id: accountId, phone }).first(columns);
}

export async function listOptOuts(
  db: Knex,
  accountId: string,
  opts: { after?: CursorKey; limit: number },
): Promise<(OptOutRow & CursorKey)[]> {
  const query = db("opt_outs")
    .where({ account_id: accountId })
    .select([...columns, cursorAtColumn(db, "created_at")]);
  return newestFirstPage(query, opts.after, opts.limit);
}

/** Adds a number unless it is on the list; `created` tells which (the existing entry is returned as it is). */
export async function insertOptOut(
  db: Knex,
  accountId: string,
  entry: { phone: string; source: OptOutRow["source"]; keyword: string | null; messageId: string | null },
): Promise<{ optOut: OptOutRow; created: boolean }> {
  const [row] = await db("opt_outs")
    .insert({ account_id: accountId, phone: entry.phone, source: entry.source, keyword: entry.keyword, message_id: entry.messageId })
    .onConflict(["account_id", "phone"])
    .ignore()
    .returning(columns);
  if (row) return { optOut: row as OptOutRow, created: true };
  return { optOut: (await getOptOut(db, accountId, entry.phone))!, created: false };
}

/** Adds many numbers by hand (`source: "api"`) in one statement; returns those that were not on the list. */
export async function insertOptOuts(db: Knex, accountId: string, phones: string[]): Promise<string[]> {
  if (phones.length === 0) return [];
  const { rows } = await run<{ phone: string }>(
    db,
    sql`INSERT INTO opt_outs (account_id, phone, source)
        SELECT ${accountId}, p, 'api' FROM unnest(${phones}::text[]) AS p
        ON CONFLICT (account_id, phone) DO NOTHING RETURNING phone`,
  );
  return rows.map((r) => r.phone);
}

/** Removes a number from the list; the removed entry, or undefined when it was not there. */
export async function deleteOptOut(db: Knex, accountId: string, phone: string): Promise<OptOutRow | undefined> {
  const [row] = await db("opt_outs").where({ account_id: accountId, phone }).del().returning(columns);
  return row as OptOutRow | undefined;
}

/** Which of these numbers are on the account's list (one statement, however many). */
export async function optedOutAmong(db: Knex, accountId: string, phones: string[]): Promise<Set<string>> {
  if (phones.length === 0) return new Set();
  const { rows } = await run<{ phone: string }>(
    db,
    sql`SELECT phone FROM opt_outs WHERE account_id = ${accountId} AND phone = ANY(${phones}::text[])`,
  );
  return new Set(rows.map((r) => r.phone));
}

/** The one opt-out test, for a statement whose row has the account and phone in these columns. */
export function isOptedOutSql(accountColumn: string, phoneColumn: string): Sql {
  return sql.raw(`EXISTS (SELECT 1 FROM opt_outs o WHERE o.account_id = ${accountColumn} AND o.phone = ${phoneColumn})`);
}

/**
 * Of these messages, the scheduled outbound ones whose recipient is on their account's list (keyword
 * confirmations excepted): one indexed probe per message.
 */
export async function scheduledToOptedOut(db: Knex, keys: { id: string; accountId: string }[]): Promise<MessageFactsRow[]> {
  if (keys.length === 0) return [];
  const { rows } = await run<MessageFactsRow>(
    db,
    sql`SELECT ${MESSAGE_FACTS_SQL}
          FROM messages m
         WHERE ${byAccountKeysSql("m", keys)} AND ${statusInSql("m", ["scheduled"])} AND NOT m.bypasses_opt_out
           AND ${isOptedOutSql("m.account_id", "m.recipient")}`,
  );
  return rows;
}
