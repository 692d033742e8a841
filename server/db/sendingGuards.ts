// The operator's guards at send time, as SQL on a message `m`: its account still holds its E.164 sender, and
// its account is not suspended. The send claim tests both (db/messages/transitions.ts); what it leaves is
// failed (an unheld sender) or waits (a suspended account) — services/sendingGuards.ts.
import type { Knex } from "knex";
import { MESSAGE_FACTS_SQL, type MessageFactsRow } from "./messages/rows.js";
import { byAccountKeysSql, statusInSql } from "./byIdFilters.js";
import { run, sql } from "./sql.js";

/** True when `m`'s sender is alphanumeric or a number its account holds (numbers_phone_number_key). */
export const SENDER_HELD_SQL = sql`(left(m.sender, 1) <> '+' OR EXISTS (
  SELECT 1 FROM numbers n WHERE n.phone_number = m.sender AND n.account_id = m.account_id))`;

/** True when `m`'s account is suspended. */
export const ACCOUNT_SUSPENDED_SQL = sql`EXISTS (SELECT 1 FROM accounts a WHERE a.id = m.account_id AND a.suspended)`;

/** Of these messages, those still scheduled whose E.164 sender their account no longer holds. */
export async function scheduledFromUnheldSenders(db: Knex, keys: { id: string; accountId: string }[]): Promise<MessageFactsRow[]> {
  if (keys.length === 0) return [];
  const { rows } = await run<MessageFactsRow>(
    db,
    sql`SELECT ${MESSAGE_FACTS_SQL}
          FROM messages m
         WHERE ${byAccountKeysSql("m", keys)} AND ${statusInSql("m", ["scheduled"])} AND NOT ${SENDER_HELD_SQL}`,
  );
  return rows;
}

/** Of these messages, the ids of those still scheduled whose account is suspended. */
export async function scheduledOfSuspended(db: Knex, keys: { id: string; accountId: string }[]): Promise<string[]> {
  if (keys.length === 0) return [];
  const { rows } = await run<{ id: string }>(
    db,
    sql`SELECT m.id FROM messages m
         WHERE ${byAccountKeysSql("m", keys)} AND ${statusInSql("m", ["scheduled"])} AND ${ACCOUNT_SUSPENDED_SQL}`,
  );
  return rows.map((r) => r.id);
}
