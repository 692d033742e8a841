// Counted message events (migrations 036, 038, 039, docs/REPORTS.md): message_count_deltas appended by the
// statements that make the events (those that store messages and those that write status history, through the
// two builders below); the leader's chore moves them into message_counts; a report reads both.
import type { Knex } from "knex";
import { OPTED_OUT_CODE, TTD_BOUNDS_SECONDS, type CountedEvent, type ReportKey } from "../domain/reports.js";
import { run, sql, type Sql } from "./sql.js";

const NIL = "'00000000-0000-0000-0000-000000000000'::uuid";
const KEYS = "account_id, bucket, event, country, category, campaign_id, connector_id, error_code, ttd";

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
] as const;

/**
 * SQL: the INSERT (for a CTE of the status statement) that counts `event` for every message of CTE `from`
 * (account_id and the COUNTED_COLUMNS) at `at` (an SQL expression: the event's time), in the statement that
 * makes the event.
 *
 * It also sets `sms.status_counted` for the transaction, which the history trigger (migration 038) reads to
 * leave these rows alone: a release before 038 inserts history without counting, and its rows are still
 * counted by the trigger during a rolling upgrade. Counting here costs the lifecycle a few per cent of
 * pgbench's ceiling; the trigger that grouped a transition table and looked every message up again cost 38 %
 * (bench/NOTES.md, "status counts in the statements").
 */
export function countStatusEventsSql(from: string, event: string, at: string): Sql {
  const f = sql.raw(from);
  const time = sql.raw(at);
  return sql`INSERT INTO message_count_deltas (${sql.raw(KEYS)}, messages, segments)
    SELECT ${f}.account_id, to_timestamp(floor(extract(epoch FROM ${time}) / 900) * 900), ${event}::text, coalesce(${f}.country, ''),
           ${f}.category, coalesce(${f}.campaign_id, ${sql.raw(NIL)}), coalesce(${f}.connector_id, ${sql.raw(NIL)}),
           CASE WHEN ${event}::text IN ('failed', 'undelivered') THEN coalesce(${f}.error_code, '') ELSE '' END,
           CASE WHEN ${event}::text = 'delivered'
                THEN width_bucket(extract(epoch FROM ${time} - ${f}.scheduled_at)::float8, ${[...TTD_BOUNDS_SECONDS]}::float8[])::smallint
                ELSE (-1)::smallint END,
           count(*), sum(${f}.segments)
      FROM ${f} CROSS JOIN LATERAL (SELECT set_config('sms.status_counted', 'on', true)) counted
     WHERE NOT ${f}.test
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9`;
}

/** The columns an INSERT INTO messages returns for countStoredEventsSql. */
export const STORED_COUNTED_COLUMNS = "account_id, direction, created_at, received_at, country, category, campaign_id, segments, test";

/**
 * SQL (no bindings): the INSERT (for a CTE, or the main statement) that counts the messages of CTE `from`
 * (STORED_COUNTED_COLUMNS) as accepted (outbound, when created) or received (inbound), in the statement that
 * stores them, and sets `sms.stored_counted` for the transaction, which the trigger on messages (migration
 * 039) reads to leave them alone; it counts an older release's inserts during a rolling upgrade.
 */
export function countStoredEventsSql(from: string): Sql {
  return sql.raw(`INSERT INTO message_count_deltas (${KEYS}, messages, segments)
    SELECT ${from}.account_id,
           to_timestamp(floor(extract(epoch FROM CASE WHEN ${from}.direction = 'inbound' THEN ${from}.received_at ELSE ${from}.created_at END) / 900) * 900),
           CASE WHEN ${from}.direction = 'inbound' THEN 'received' ELSE 'accepted' END, coalesce(${from}.country, ''),
           CASE WHEN ${from}.direction = 'inbound' THEN '' ELSE ${from}.category END, coalesce(${from}.campaign_id, ${NIL}),
           ${NIL}, '', (-1)::smallint, count(*), sum(${from}.segments)
      FROM ${from} CROSS JOIN LATERAL (SELECT set_config('sms.stored_counted', 'on', true)) counted
     WHERE NOT ${from}.test
     GROUP BY 1, 2, 3, 4, 5, 6`);
}

export interface CountQuery {
  /** One account's counts, or every account's (null: the operator's). */
  accountId: string | null;
  since: Date;
  until: Date;
  /** The IANA zone hours and days are in. */
  tz: string;
  groupBy: readonly ReportKey[];
  /** Only one campaign's messages. */
  campaignId?: string;
}

/** Each key as SQL over a counts row (`hour` also needs its UTC offset: a repeated hour at a DST end is two). */
function keyColumns(k: ReportKey, tz: Sql): Sql[] {
  const local = sql`(bucket AT TIME ZONE ${tz}::text)`;
  switch (k) {
    case "hour":
      return [
        sql`to_char(date_trunc('hour', ${local}), 'YYYY-MM-DD"T"HH24:MI:SS') AS hour`,
        sql`(extract(epoch FROM ${local} - (bucket AT TIME ZONE 'UTC')) / 60)::int AS hour_offset`,
      ];
    case "day":
      return [sql`to_char(${local}::date, 'YYYY-MM-DD') AS day`];
    case "status":
      return [sql`event AS status`];
    case "country":
      return [sql`nullif(country, '') AS country`];
    case "category":
      return [sql`nullif(category, '') AS category`];
    case "campaign":
      return [sql.raw(`nullif(campaign_id, ${NIL})::text AS campaign`)];
    case "connector":
      return [sql.raw(`nullif(connector_id, ${NIL})::text AS connector`)];
    case "errorCode":
      return [sql`nullif(error_code, '') AS "errorCode"`];
    case "account":
      return [sql`account_id::text AS account`];
  }
}

const HOUR_MS = 3_600_000;

/**
 * Whether every UTC hour of [from, to) is one local hour in `tz`: the zone's offset is whole hours and does
 * not change inside any of them (checked at each quarter hour, the counts' grain, by PostgreSQL's own zone
 * data, which makes the keys). Then that window's hourly counts group exactly as its quarter hours would.
 */
async function hoursAreLocalHours(db: Knex, tz: string, from: Date, to: Date): Promise<boolean> {
  const offset = (at: Sql) => sql`((${at}) AT TIME ZONE ${tz}::text) - ((${at}) AT TIME ZONE 'UTC')`;
  const { rows } = await run<{ whole: boolean }>(
    db,
    sql`SELECT coalesce(bool_and(extract(epoch FROM ${offset(sql`t`)})::int % 3600 = 0
                                 AND ${offset(sql`t`)} = ${offset(sql`to_timestamp(floor(extract(epoch FROM t) / 3600) * 3600)`)}), true) AS whole
          FROM generate_series(${from.toISOString()}::timestamptz, ${to.toISOString()}::timestamptz - interval '15 minutes',
                               interval '15 minutes') t`,
  );
  return rows[0]!.whole;
}

/**
 * The window's counts grouped by the query's keys, per event, opt-out, time-to-delivered bucket. Its whole
 * UTC hours are read from the hourly counts when they are local hours in the zone, the rest (and any zone with
 * a half or quarter hour offset) from the quarter hours; the deltas not yet moved are read at their quarter hour.
 */
export async function readMessageCounts(db: Knex, q: CountQuery): Promise<CountedEvent[]> {
  const tz = sql`${q.tz}`;
  const columns = q.groupBy.flatMap((k) => keyColumns(k, tz));
  const names = q.groupBy.flatMap((k) => (k === "hour" ? ["hour", "hour_offset"] : [k === "errorCode" ? '"errorCode"' : k]));
  const from = (table: string, since: Date, until: Date) =>
    sql`SELECT ${sql.raw(KEYS)}, messages, segments FROM ${sql.raw(table)}
         WHERE ${q.accountId === null ? sql`true` : sql`account_id = ${q.accountId}::uuid`}
               ${q.campaignId ? sql`AND campaign_id = ${q.campaignId}::uuid` : sql``}
               AND bucket >= ${since.toISOString()}::timestamptz AND bucket < ${until.toISOString()}::timestamptz`;
  const firstHour = new Date(Math.ceil(q.since.getTime() / HOUR_MS) * HOUR_MS);
  const endHour = new Date(Math.floor(q.until.getTime() / HOUR_MS) * HOUR_MS);
  const hourly = firstHour < endHour && (await hoursAreLocalHours(db, q.tz, firstHour, endHour));
  const parts = hourly
    ? [
        from("message_counts_hourly", firstHour, endHour),
        ...(q.since < firstHour ? [from("message_counts", q.since, firstHour)] : []),
        ...(endHour < q.until ? [from("message_counts", endHour, q.until)] : []),
      ]
    : [from("message_counts", q.since, q.until)];
  const { rows } = await run<Record<string, string | number | boolean | null>>(
    db,
    sql`SELECT ${sql.join(columns)}${columns.length > 0 ? sql`,` : sql``} event, (event = 'failed' AND error_code = ${OPTED_OUT_CODE}) AS opted_out, ttd,
               sum(messages)::float8 AS messages, sum(segments)::float8 AS segments
          FROM (${sql.join([...parts, from("message_count_deltas", q.since, q.until)], " UNION ALL ")}) c
         GROUP BY ${sql.raw([...names, "event", "opted_out", "ttd"].join(", "))}`,
  );
  return rows.map((r) => ({
    keys: Object.fromEntries(
      q.groupBy.map((k) => [k, k === "hour" ? hourKey(r.hour as string, r.hour_offset as number) : (r[k] as string | null)]),
    ),
    event: r.event as CountedEvent["event"],
    optedOut: r.opted_out === true,
    ttd: r.ttd as number,
    messages: r.messages as number,
    segments: r.segments as number,
  }));
}

/** A local hour and its offset as an ISO 8601 time: 2026-11-25T14:00:00+05:30. */
function hourKey(local: string, offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
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
           WHERE ctid = ANY (ARRAY(SELECT ctid FROM message_count_deltas LIMIT ${limit}))
          RETURNING ${sql.raw(KEYS)}, messages, segments
        ), added AS (
          INSERT INTO message_counts AS c (${sql.raw(KEYS)}, messages, segments)
          SELECT ${sql.raw(KEYS)}, sum(messages), sum(segments) FROM moved
           WHERE EXISTS (SELECT FROM accounts a WHERE a.id = moved.account_id)
           GROUP BY ${sql.raw(KEYS)}
          ON CONFLICT (${sql.raw(KEYS)}) DO UPDATE
             SET messages = c.messages + excluded.messages, segments = c.segments + excluded.segments
        )
        SELECT count(*)::int AS moved FROM moved`,
  );
  return rows[0]?.moved ?? 0;
}
