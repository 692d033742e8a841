// The guards at send time, as SQL on a message `m`: its account still holds its E.164 sender, its account is
// not suspended, and its campaign (if any) is not paused. The send claim tests them (db/messages/transitions.ts);
// what it leaves is failed (an unheld sender) or waits (a suspended account, a paused campaign) —
// services/sendingGuards.ts.
import type { Knex } from "knex";
import { MESSAGE_FACTS_SQL, type MessageFactsRow } from "./messages/rows.js";
import { byAccountKeysSql, statusInSql } from "./byIdFilters.js";
import { run, sql } from "./sql.js";

/** True when `m`'s sender is alphanumeric or a number its account holds (numbers_phone_number_key). */
export const SENDER_HELD_SQL = sql`(left(m.sender, 1) <> '+' OR EXISTS (
  SELECT 1 FROM numbers n WHERE n.phone_number = m.sender AND n.account_id = m.account_id))`;

/** True when `m`'s account is suspended. */
export const ACCOUNT_SUSPENDED_SQL = sql`EXISTS (SELECT 1 FROM accounts a WHERE a.id = m.account_id AND a.suspended)`;

/**
 * True when `m` belongs to a paused campaign (or a draft's, which has none yet). A primary-key probe for a
 * campaign's message; nothing for the others.
 */
export const CAMPAIGN_PAUSED_SQL = sql`(m.campaign_id IS NOT NULL AND EXISTS (
  SELECT 1 FROM campaigns c WHERE c.id = m.campaign_id AND c.account_id = m.account_id AND c.status IN ('paused', 'draft')))`;

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

/** Of these messages, those still scheduled whose campaign is paused, with when their validity ends. */
export async function scheduledOfPaused(
  db: Knex,
  keys: { id: string; accountId: string }[],
): Promise<{ id: string; validUntil: Date | null }[]> {
  if (keys.length === 0) return [];
  const { rows } = await run<{ id: string; validUntil: Date | null }>(
    db,
    sql`SELECT m.id, m.valid_until AS "validUntil" FROM messages m
         WHERE ${byAccountKeysSql("m", keys)} AND ${statusInSql("m", ["scheduled"])} AND ${CAMPAIGN_PAUSED_SQL}`,
  );
  return rows;
}
