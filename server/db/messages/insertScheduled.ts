import type { Knex } from "knex";
import type { NewMessage } from "./rows.js";
import { insertJobsSql, notifyWhenSql, wakeUpPayload } from "../jobs/index.js";
import { countStoredEventsSql, STORED_COUNTED_COLUMNS } from "../messageCounts.js";
import { prepared, runPrepared } from "../prepared.js";
import { jobPrioritySql } from "../jobs/priorities.js";
import { sql, type Sql } from "../sql.js";
import { countryOf } from "../../domain/phone.js";
import { SCHEDULE_DEFAULTS } from "../../domain/sendingPolicy.js";

/**
 * POST /scheduler/schedule in ONE statement: the opt-out check, the send job, the message (its "scheduled"
 * history entry is the row's created_at, not stored), its count for reports, and the workers' wake-up when it is due within the
 * notify horizon. One statement is atomic on its own, so without an Idempotency-Key no BEGIN/COMMIT round trips
 * are needed (the previous version took five round trips: BEGIN, three INSERTs, COMMIT). The opt-out check is
 * a CTE here, not a query of its own: as a separate round trip it held the sustained-load test under its rate.
 * A recipient on the account's opt-out list gets nothing inserted and `optedOut: true`; so does an E.164 sender
 * the account does not hold (`senderNotHeld: true`), checked in the same statement for the same reason.
 */
export const insertScheduledMessageStatement = prepared("schedule_message", (v: ScheduleValues) => scheduleMessageSql(v));

/**
 * A condition the message must pass to be stored, written by whoever owns it (billing's charge: a module's
 * tables are its own, so this file knows none of them). `ctes` come after `allowed` (the sender held, the
 * recipient not opted out) and may read it; the job and the message are inserted for each row of the CTE named
 * `passes` (one row or none); `results` are columns added to the statement's one result row.
 */
export interface ScheduleGate {
  ctes: Sql;
  passes: string;
  results: Sql;
}

/** The statement of insertScheduledMessageStatement, with a gate when given (its text fixed by the gate's). */
export function scheduleMessageSql(v: ScheduleValues, gate?: ScheduleGate): Sql {
  const from = sql.raw(gate?.passes ?? "allowed");
  return sql`WITH held AS (
          SELECT WHERE left(${v.from}::text, 1) <> '+'
                    OR EXISTS (SELECT FROM numbers WHERE phone_number = ${v.from}::text AND account_id = ${v.accountId}::uuid)
        ), allowed AS (
          SELECT FROM held WHERE NOT EXISTS (SELECT FROM opt_outs WHERE account_id = ${v.accountId}::uuid AND phone = ${v.to}::text)
        ), ${gate ? sql`${gate.ctes}, ` : sql``}job AS (
          ${insertJobsSql("send_message", {
            id: sql`${v.jobId}::uuid`,
            accountId: sql`${v.accountId}::uuid`,
            payload: sql`CASE WHEN ${v.test}::boolean THEN jsonb_build_object('messageId', ${v.id}::uuid, 'test', true)
                              ELSE jsonb_build_object('messageId', ${v.id}::uuid) END`,
            runAt: sql`${v.scheduledAt}::timestamptz`,
            priority: jobPrioritySql(sql`${v.priority}::text`),
            from: from,
          })}
        ), message AS (
          INSERT INTO messages (id, account_id, job_id, recipient, sender, body, scheduled_at, segments, encoding, valid_until, category, priority, test,
                                reference, metadata, sent_body, sender_pool_id, country, smpp_receipt, price_amount, price_per_segment, price_currency,
                                template_id)
          SELECT ${v.id}::uuid, ${v.accountId}::uuid, ${v.jobId}::uuid, ${v.to}::text, ${v.from}::text, ${v.body}::text, ${v.scheduledAt}::timestamptz,
                 ${v.segments}::int, ${v.encoding}::text, ${v.validUntil}::timestamptz, ${v.category}::text, ${v.priority}::text, ${v.test}::boolean,
                 ${v.reference}::text, ${v.metadata}::jsonb, ${v.sentBody}::text, ${v.senderPoolId}::uuid, ${v.country}::text,
                 ${v.smppReceipt}::text, ${v.priceAmount}::bigint, ${v.pricePerSegment}::bigint, ${v.priceCurrency}::text,
                 ${v.templateId}::uuid
            FROM ${from}
          RETURNING ${STORED_COUNTED_COLUMNS}
        ), counted AS (
          ${countStoredEventsSql("message")}
        )
        SELECT NOT EXISTS (SELECT FROM held) AS "senderNotHeld", NOT EXISTS (SELECT FROM allowed) AS "optedOut",
               ${notifyWhenSql(sql`${v.wakeUp}::text <> '' AND EXISTS (SELECT FROM ${from})`, sql`${v.wakeUp}::text`)}${gate?.results ?? sql``}`;
}

/** The statement's values for one message. */
export interface ScheduleValues {
  id: string;
  jobId: string;
  to: string;
  from: string;
  body: string;
  /** The workers' wake-up payload, or '' when the message is not due within the notify horizon. */
  wakeUp: string;
  scheduledAt: Date;
  segments: number;
  encoding: string;
  accountId: string;
  validUntil: Date | null;
  category: string;
  priority: string;
  test: boolean;
  reference: string | null;
  metadata: string | null;
  sentBody: string | null;
  senderPoolId: string | null;
  country: string | null;
  smppReceipt: string | null;
  priceAmount: number | null;
  pricePerSegment: number | null;
  priceCurrency: string | null;
  templateId: string | null;
}

/** The statement's values for a message (bench:api's baseline sends the same statement with them). */
export function scheduleMessageBindings(accountId: string, m: NewMessage): ScheduleValues {
  return {
    id: m.id,
    jobId: m.jobId,
    to: m.to,
    from: m.from,
    body: m.body,
    wakeUp: wakeUpPayload(m.scheduledAt) ?? "",
    scheduledAt: m.scheduledAt,
    segments: m.segments,
    encoding: m.encoding,
    accountId,
    validUntil: m.validUntil ?? null,
    category: m.category ?? SCHEDULE_DEFAULTS.category,
    priority: m.priority ?? SCHEDULE_DEFAULTS.priority,
    test: m.test ?? false,
    reference: m.reference ?? null,
    metadata: m.metadata ? JSON.stringify(m.metadata) : null,
    sentBody: m.sentBody ?? null,
    senderPoolId: m.senderPoolId ?? null,
    country: countryOf(m.to),
    smppReceipt: m.smppReceipt ?? null,
    priceAmount: m.price?.amount ?? null,
    pricePerSegment: m.price?.perSegment ?? null,
    priceCurrency: m.price?.currency ?? null,
    templateId: m.templateId ?? null,
  };
}

/**
 * Stores the message and its job; nothing is stored, and the answer says why, when the account does not hold
 * its E.164 sender or its recipient is on the account's opt-out list.
 */
export async function insertScheduledMessage(
  db: Knex,
  accountId: string,
  m: NewMessage,
): Promise<"stored" | "sender_not_held" | "opted_out"> {
  const [row] = await runPrepared<{ senderNotHeld: boolean; optedOut: boolean }, ScheduleValues>(
    db,
    insertScheduledMessageStatement,
    scheduleMessageBindings(accountId, m),
  );
  return row!.senderNotHeld ? "sender_not_held" : row!.optedOut ? "opted_out" : "stored";
}
