// What the sending policy (quiet hours, throughput caps) needs to know about a window's messages, read only for
// the messages it applies to. The send claim's fast path (claimMessagesForSending) leaves those messages alone,
// so an account without quiet hours or a cap pays one index probe of account_settings per message and nothing
// more.
import type { Knex } from "knex";
import type { Category, Priority } from "../domain/sendingPolicy.js";
import { byAccountKeysSql, statusInSql } from "./byIdFilters.js";
import { run, sql } from "./sql.js";

/**
 * SQL, true when the policy must look at message `m` before it is sent: its account has a throughput cap (its
 * own, or the operator's ceiling), or it is a marketing message and its account has quiet hours. The claim's
 * fast path skips such messages.
 */
export const NEEDS_SENDING_POLICY_SQL = sql`(EXISTS (
  SELECT 1 FROM account_settings s
   WHERE s.account_id = m.account_id
     AND (s.max_segments_per_second IS NOT NULL OR (m.category = 'marketing' AND s.quiet_hours_start IS NOT NULL)))
  OR EXISTS (SELECT 1 FROM accounts o WHERE o.id = m.account_id AND o.max_segments_per_second IS NOT NULL))`;

/** A scheduled message the policy applies to, with its account's settings and its contact's time zone. */
export interface PolicyFacts {
  id: string;
  jobId: string;
  accountId: string;
  to: string;
  category: Category;
  priority: Priority;
  segments: number;
  scheduledAt: Date;
  validUntil: Date | null;
  deferredUntil: Date | null;
  /** The time zone of the account's contact with this phone, if it has one. */
  contactTimeZone: string | null;
  quietHoursStart: string | null;
  quietHoursEnd: string | null;
  defaultTimeZone: string;
  maxSegmentsPerSecond: number | null;
}

/**
 * The facts of those of `messageIds` still `scheduled` that the policy applies to (all of them when
 * `everyMessage`, as with a cap on the whole link), in the order they are to go: the order of `keys`, the
 * claim's (an account's messages by priority, then scheduledAt; accounts interleaved by the fair claim).
 */
export async function policyFacts(db: Knex, keys: { id: string; accountId: string }[], everyMessage = false): Promise<PolicyFacts[]> {
  if (keys.length === 0) return [];
  const { rows } = await run<PolicyFacts>(
    db,
    sql`SELECT m.id, m.job_id AS "jobId", m.account_id AS "accountId", m.recipient AS "to", m.category, m.priority, m.segments,
            m.scheduled_at AS "scheduledAt", m.valid_until AS "validUntil", m.deferred_until AS "deferredUntil",
            c.time_zone AS "contactTimeZone",
            s.quiet_hours_start AS "quietHoursStart", s.quiet_hours_end AS "quietHoursEnd",
            coalesce(s.default_time_zone, 'UTC') AS "defaultTimeZone",
            least(s.max_segments_per_second, o.max_segments_per_second) AS "maxSegmentsPerSecond"
       FROM messages m
       LEFT JOIN account_settings s ON s.account_id = m.account_id
       LEFT JOIN accounts o ON o.id = m.account_id
       LEFT JOIN contacts c ON c.account_id = m.account_id AND c.phone = m.recipient
      WHERE ${byAccountKeysSql("m", keys)} AND ${statusInSql("m", ["scheduled"])} AND (m.valid_until IS NULL OR m.valid_until > now())
        AND (${everyMessage}::boolean OR ${NEEDS_SENDING_POLICY_SQL})
      ORDER BY array_position(${keys.map((k) => k.id)}::uuid[], m.id)`,
  );
  return rows;
}
