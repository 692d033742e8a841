// A report's read of the counted events (docs/REPORTS.md): message_counts and the deltas the leader's chore has
// not moved yet (both written by the engine, db/messageCounts.ts), grouped by the report's keys in its zone.
import type { Knex } from "knex";
import { COUNT_KEYS, NIL, SPEND_KEYS } from "../db/messageCounts.js";
import { run, sql, type Sql } from "../db/sql.js";
import { OPTED_OUT_CODE } from "../domain/countedEvents.js";
import type { CountedEvent, ReportKey } from "./reportRows.js";

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
  const where = (since: Date, until: Date) =>
    sql`WHERE ${q.accountId === null ? sql`true` : sql`account_id = ${q.accountId}::uuid`}
               ${q.campaignId ? sql`AND campaign_id = ${q.campaignId}::uuid` : sql``}
               AND bucket >= ${since.toISOString()}::timestamptz AND bucket < ${until.toISOString()}::timestamptz`;
  const from = (table: string, since: Date, until: Date) =>
    sql`SELECT ${sql.raw(COUNT_KEYS)}, messages, segments, 0::bigint AS spend FROM ${sql.raw(table)} ${where(since, until)}`;
  // Spend (migration 051) as rows of the same shape: counted on `sent` or `delivered`, no messages of its own.
  const spendFrom = (table: string) =>
    sql`SELECT ${sql.raw(SPEND_KEYS)}, ''::text AS error_code, (-1)::smallint AS ttd, 0::bigint AS messages, 0::bigint AS segments, spend
          FROM ${sql.raw(table)} ${where(q.since, q.until)}`;
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
               sum(messages)::float8 AS messages, sum(segments)::float8 AS segments, sum(spend)::bigint AS spend
          FROM (${sql.join([...parts, from("message_count_deltas", q.since, q.until), spendFrom("spend_counts"), spendFrom("spend_deltas")], " UNION ALL ")}) c
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
    spend: r.spend as number,
  }));
}

/** A local hour and its offset as an ISO 8601 time: 2026-11-25T14:00:00+05:30. */
function hourKey(local: string, offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}
