// The account_daily_usage table (migration 026): segments accepted per account and UTC day, written only for
// accounts with a dailySegmentQuota. The upsert's row lock serialises an account's concurrent requests, so
// however many race, the sum never passes the quota.
import type { Knex } from "knex";
import { run, sql } from "../db/sql.js";

export interface QuotaCharge {
  /** False: the segments would pass the quota; nothing was counted. */
  allowed: boolean;
  /** Segments accepted today after this charge (before it, when refused). */
  segmentsAccepted: number;
  /** True once per day: this charge took the day to 80 % of the quota or more (the warning is due). */
  warn: boolean;
  day: string;
}

/** Counts `segments` against today's quota (UTC), or refuses them whole. */
export async function chargeDailySegments(tx: Knex, accountId: string, segments: number, quota: number): Promise<QuotaCharge> {
  const { rows } = await run<{ segmentsAccepted: string; warn: boolean; day: string }>(
    tx,
    // warned_at is set by the charge that reaches 80 %, at clock_timestamp(): later than this statement's
    // start, which an earlier statement's warning never is. (A second UPDATE of the row in another CTE of the
    // same statement would not see this one's change.)
    sql`INSERT INTO account_daily_usage AS u (account_id, day, segments_accepted, warned_at)
        SELECT ${accountId}::uuid, (now() AT TIME ZONE 'UTC')::date, ${segments}::bigint,
               CASE WHEN ${segments}::bigint * 5 >= ${quota}::bigint * 4 THEN clock_timestamp() END
         WHERE ${segments}::bigint <= ${quota}::bigint
        ON CONFLICT (account_id, day) DO UPDATE SET
          segments_accepted = u.segments_accepted + excluded.segments_accepted,
          warned_at = CASE WHEN u.warned_at IS NULL AND (u.segments_accepted + excluded.segments_accepted) * 5 >= ${quota}::bigint * 4
                           THEN clock_timestamp() ELSE u.warned_at END
         WHERE u.segments_accepted + excluded.segments_accepted <= ${quota}::bigint
        RETURNING u.segments_accepted::text AS "segmentsAccepted", coalesce(u.warned_at >= statement_timestamp(), false) AS warn,
                  to_char(u.day, 'YYYY-MM-DD') AS day`,
  );
  const row = rows[0];
  if (row) return { allowed: true, segmentsAccepted: Number(row.segmentsAccepted), warn: row.warn, day: row.day };
  const today = await readDailyUsage(tx, accountId);
  return { allowed: false, segmentsAccepted: today.segmentsAccepted, warn: false, day: today.day };
}

/** Today's (UTC) accepted segments of an account: 0 when nothing was counted. */
export async function readDailyUsage(db: Knex, accountId: string): Promise<{ day: string; segmentsAccepted: number }> {
  const { rows } = await run<{ day: string; segmentsAccepted: string | null }>(
    db,
    sql`SELECT to_char((now() AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day,
               (SELECT segments_accepted::text FROM account_daily_usage
                 WHERE account_id = ${accountId} AND day = (now() AT TIME ZONE 'UTC')::date) AS "segmentsAccepted"`,
  );
  return { day: rows[0]!.day, segmentsAccepted: Number(rows[0]!.segmentsAccepted ?? 0) };
}

/** Deletes usage rows older than `before` (retention). */
export async function deleteOldDailyUsage(db: Knex, before: Date): Promise<number> {
  return db("account_daily_usage").where("day", "<", before.toISOString().slice(0, 10)).del();
}
