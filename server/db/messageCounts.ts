// Counted message events (migrations 036, 038, 039, 070, docs/REPORTS.md): message_count_deltas added to by the
// statements that make the events, each on its connection's row per key (those that store messages and those
// that change a status, through the two builders below); the leader's chore moves them into message_counts; a report reads both
// (server/reports/countsTable.ts).
import type { Knex } from "knex";
import { TTD_BOUNDS_SECONDS } from "../domain/countedEvents.js";
import { run, sql, type Sql } from "./sql.js";

/** The uuid a count row keeps for "no campaign" or "no connector" (the key columns are NOT NULL). */
export const NIL = "'00000000-0000-0000-0000-000000000000'::uuid";
/** The key columns of message_count_deltas and message_counts. */
export const COUNT_KEYS = "account_id, bucket, event, country, category, campaign_id, connector_id, error_code, ttd";

/**
 * A counting statement adds to its connection's delta row for the key (migration 070): one connection runs one
 * transaction at a time, so the row is never another transaction's in flight, and the add is a HOT update.
 * Only the chore's fold, which skips rows locked, deletes it.
 */
const ADD_TO_CONNECTION_ROW = `ON CONFLICT (${COUNT_KEYS}, backend) DO UPDATE
      SET messages = d.messages + excluded.messages, segments = d.segments + excluded.segments`;

/** The columns a status statement returns for countStatusEventsSql, besides account_id (of messages). */
export const COUNTED_COLUMNS = [
  "country",
  "category",
  "campaign_id",
  "connector_id",
  "error_code",
  "scheduled_at",
  "segments",
  "test",
  "price_amount",
] as const;

/**
 * SQL: the INSERT (for a CTE of the status statement) that counts `event` for every message of CTE `from`
 * (account_id and the COUNTED_COLUMNS) at `at` (an SQL expression: the event's time), in the statement that
 * makes the event.
 *
 * Counting here costs the lifecycle a few per cent of pgbench's ceiling; the trigger on the history table that
 * grouped a transition table and looked every message up again cost 38 % (bench/NOTES.md, "status counts in the
 * statements"; the table went with migration 071).
 */
export function countStatusEventsSql(from: string, event: string, at: string): Sql {
  const f = sql.raw(from);
  const time = sql.raw(at);
  return sql`INSERT INTO message_count_deltas AS d (${sql.raw(COUNT_KEYS)}, messages, segments, backend)
    SELECT ${f}.account_id, to_timestamp(floor(extract(epoch FROM ${time}) / 900) * 900), ${event}::text, coalesce(${f}.country, ''),
           ${f}.category, coalesce(${f}.campaign_id, ${sql.raw(NIL)}), coalesce(${f}.connector_id, ${sql.raw(NIL)}),
           CASE WHEN ${event}::text IN ('failed', 'undelivered') THEN coalesce(${f}.error_code, '') ELSE '' END,
           CASE WHEN ${event}::text = 'delivered'
                THEN width_bucket(extract(epoch FROM ${time} - ${f}.scheduled_at)::float8, ${[...TTD_BOUNDS_SECONDS]}::float8[])::smallint
                ELSE (-1)::smallint END,
           count(*), sum(${f}.segments), pg_backend_pid()
      FROM ${f}
     WHERE NOT ${f}.test
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9
    ${sql.raw(ADD_TO_CONNECTION_ROW)}`;
}

/** The key columns of spend_deltas and spend_counts (migration 051). */
export const SPEND_KEYS = "account_id, bucket, event, country, category, campaign_id, connector_id";

/**
 * SQL: the INSERT (for a CTE of the status statement) that counts the spend of the messages of CTE `from`
 * whose charge `event` makes final: `sent` for accounts charging on submission, `delivered` for those
 * charging on delivery (migration 051). Null for any other event: nothing to count. No row without a priced
 * message of such an account.
 */
export function countSpendSql(from: string, event: string, at: string): Sql | null {
  const chargeOn = event === "sent" ? "submitted" : event === "delivered" ? "delivered" : null;
  if (!chargeOn) return null;
  const f = sql.raw(from);
  const time = sql.raw(at);
  return sql`INSERT INTO spend_deltas (${sql.raw(SPEND_KEYS)}, spend)
    SELECT ${f}.account_id, to_timestamp(floor(extract(epoch FROM ${time}) / 900) * 900), ${event}::text, coalesce(${f}.country, ''),
           ${f}.category, coalesce(${f}.campaign_id, ${sql.raw(NIL)}), coalesce(${f}.connector_id, ${sql.raw(NIL)}), sum(${f}.price_amount)
      FROM ${f}
     WHERE ${f}.price_amount IS NOT NULL AND NOT ${f}.test
       AND EXISTS (SELECT FROM accounts ac WHERE ac.id = ${f}.account_id AND ac.charge_on = ${chargeOn}::text)
     GROUP BY 1, 2, 3, 4, 5, 6, 7`;
}

/** Moves up to `limit` spend deltas into spend_counts in ONE statement, as compactMessageCounts does. */
export async function compactSpendCounts(db: Knex, limit = 50_000): Promise<number> {
  const { rows } = await run<{ moved: number }>(
    db,
    sql`WITH moved AS (
          DELETE FROM spend_deltas WHERE ctid = ANY (ARRAY(SELECT ctid FROM spend_deltas LIMIT ${limit}))
          RETURNING ${sql.raw(SPEND_KEYS)}, spend
        ), added AS (
          INSERT INTO spend_counts AS c (${sql.raw(SPEND_KEYS)}, spend)
          SELECT ${sql.raw(SPEND_KEYS)}, sum(spend) FROM moved
           WHERE EXISTS (SELECT FROM accounts a WHERE a.id = moved.account_id)
           GROUP BY ${sql.raw(SPEND_KEYS)}
          ON CONFLICT (${sql.raw(SPEND_KEYS)}) DO UPDATE SET spend = c.spend + excluded.spend
        )
        SELECT count(*)::int AS moved FROM moved`,
  );
  return rows[0]?.moved ?? 0;
}

/** The columns an INSERT INTO messages returns for countStoredEventsSql. */
export const STORED_COUNTED_COLUMNS = sql`account_id, direction, created_at, received_at, country, category, campaign_id, segments, test`;

/**
 * SQL (no bindings): the INSERT (for a CTE, or the main statement) that counts the messages of CTE `from`
 * (STORED_COUNTED_COLUMNS) as accepted (outbound, when created) or received (inbound), in the statement that
 * stores them, and sets `sms.stored_counted` for the transaction, which the trigger on messages (migration
 * 039) reads to leave them alone; it counts an older release's inserts during a rolling upgrade.
 */
export function countStoredEventsSql(from: string): Sql {
  return sql.raw(`INSERT INTO message_count_deltas AS d (${COUNT_KEYS}, messages, segments, backend)
    SELECT ${from}.account_id,
           to_timestamp(floor(extract(epoch FROM CASE WHEN ${from}.direction = 'inbound' THEN ${from}.received_at ELSE ${from}.created_at END) / 900) * 900),
           CASE WHEN ${from}.direction = 'inbound' THEN 'received' ELSE 'accepted' END, coalesce(${from}.country, ''),
           CASE WHEN ${from}.direction = 'inbound' THEN '' ELSE ${from}.category END, coalesce(${from}.campaign_id, ${NIL}),
           ${NIL}, '', (-1)::smallint, count(*), sum(${from}.segments), pg_backend_pid()
      FROM ${from} CROSS JOIN LATERAL (SELECT set_config('sms.stored_counted', 'on', true)) counted
     WHERE NOT ${from}.test
     GROUP BY 1, 2, 3, 4, 5, 6
    ${ADD_TO_CONNECTION_ROW}`);
}

/**
 * Moves up to `limit` deltas into message_counts in ONE statement (deleted and added together, so a delta is
 * counted once or, if the statement fails, stays to be moved later); those of a deleted account are dropped.
 * Returns how many it moved.
 */
export async function compactMessageCounts(db: Knex, limit = 50_000): Promise<number> {
  const { rows } = await run<{ moved: number }>(
    db,
    sql`WITH moved AS (
          DELETE FROM message_count_deltas
           WHERE ctid = ANY (ARRAY(SELECT ctid FROM message_count_deltas LIMIT ${limit} FOR UPDATE SKIP LOCKED))
          RETURNING ${sql.raw(COUNT_KEYS)}, messages, segments
        ), added AS (
          INSERT INTO message_counts AS c (${sql.raw(COUNT_KEYS)}, messages, segments)
          SELECT ${sql.raw(COUNT_KEYS)}, sum(messages), sum(segments) FROM moved
           WHERE EXISTS (SELECT FROM accounts a WHERE a.id = moved.account_id)
           GROUP BY ${sql.raw(COUNT_KEYS)}
          ON CONFLICT (${sql.raw(COUNT_KEYS)}) DO UPDATE
             SET messages = c.messages + excluded.messages, segments = c.segments + excluded.segments
        )
        SELECT count(*)::int AS moved FROM moved`,
  );
  return rows[0]?.moved ?? 0;
}
