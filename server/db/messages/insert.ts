// New messages: scheduled ones with their send jobs (one or a fan-out's batch), automatic replies, inbound ones,
// each counted for reports in the statement that stores it.
import type { Knex } from "knex";
import { countryOf } from "../../domain/phone.js";
import { SCHEDULE_DEFAULTS } from "../../domain/sendingPolicy.js";
import type { Encoding } from "../../../common/segments.js";
import { insertJobsSql, notifyWorkers } from "../jobs/index.js";
import { countStoredEventsSql, STORED_COUNTED_COLUMNS } from "../messageCounts.js";
import { run, sql } from "../sql.js";
import type { NewMessage } from "./rows.js";
import { jobPrioritySql } from "../jobs/priorities.js";

/**
 * Stores scheduled messages with their send jobs in ONE statement, the columns
 * passed as arrays (unnest): a few parameters however many rows, so neither side parses thousands of
 * placeholders. Campaign fan-out uses it: it makes a campaign's messages in half the time of knex's multi-row
 * INSERTs (bench/NOTES.md, "Figures behind the code").
 * Wakes the workers (at commit) when one of the messages is due within the notify horizon.
 */
export async function insertMessagesWithJobs(tx: Knex, accountId: string, messages: NewMessage[]): Promise<void> {
  if (messages.length === 0) return;
  const col = <T>(pick: (m: NewMessage) => T) => messages.map(pick);
  await run(
    tx,
    sql`WITH rows AS (
          SELECT * FROM unnest(${col((m) => m.id)}::uuid[], ${col((m) => m.jobId)}::uuid[], ${col((m) => m.campaignId ?? null)}::uuid[],
                               ${col((m) => m.to)}::text[], ${col((m) => m.from)}::text[], ${col((m) => m.body)}::text[],
                               ${col((m) => m.scheduledAt.toISOString())}::timestamptz[], ${col((m) => m.segments)}::int[],
                               ${col((m) => m.encoding)}::text[], ${col((m) => m.validUntil?.toISOString() ?? null)}::timestamptz[],
                               ${col((m) => m.category ?? SCHEDULE_DEFAULTS.category)}::text[],
                               ${col((m) => m.priority ?? SCHEDULE_DEFAULTS.priority)}::text[], ${col((m) => m.test ?? false)}::boolean[],
                               ${col((m) => m.batchId ?? null)}::uuid[], ${col((m) => m.reference ?? null)}::text[],
                               ${col((m) => (m.metadata ? JSON.stringify(m.metadata) : null))}::jsonb[], ${col((m) => m.sentBody ?? null)}::text[],
                               ${col((m) => m.senderPoolId ?? null)}::uuid[], ${col((m) => countryOf(m.to))}::text[],
                               ${col((m) => m.price?.amount ?? null)}::bigint[], ${col((m) => m.price?.perSegment ?? null)}::bigint[],
                               ${col((m) => m.price?.currency ?? null)}::text[], ${col((m) => m.templateId ?? null)}::uuid[])
            AS r(id, job_id, campaign_id, recipient, sender, body, scheduled_at, segments, encoding, valid_until, category, priority, test,
                 batch_id, reference, metadata, sent_body, sender_pool_id, country, price_amount, price_per_segment, price_currency, template_id)
        ), jobs AS (
          ${insertJobsSql("send_message", {
            id: sql`job_id`,
            accountId: sql`${accountId}::uuid`,
            payload: sql`CASE WHEN test THEN jsonb_build_object('messageId', id, 'test', true) ELSE jsonb_build_object('messageId', id) END`,
            runAt: sql`scheduled_at`,
            priority: jobPrioritySql(sql`priority`),
            from: sql`rows`,
          })}
        ), stored AS (
          INSERT INTO messages (id, account_id, campaign_id, job_id, recipient, sender, body, scheduled_at, segments, encoding, valid_until, category, priority, test,
                                batch_id, reference, metadata, sent_body, sender_pool_id, country, price_amount, price_per_segment, price_currency,
                                template_id)
          SELECT id, ${accountId}, campaign_id, job_id, recipient, sender, body, scheduled_at, segments, encoding, valid_until, category, priority, test,
                 batch_id, reference, metadata, sent_body, sender_pool_id, country, price_amount, price_per_segment, price_currency,
                 template_id FROM rows
          RETURNING ${STORED_COUNTED_COLUMNS}
        )
        ${countStoredEventsSql("stored")}`,
  );
  await notifyWorkers(tx, new Date(Math.min(...messages.map((m) => m.scheduledAt.getTime()))));
}

/**
 * An automatic reply (a keyword's confirmation or the help text): an ordinary outbound message due now, with its
 * send job, that the send-time opt-out check lets through.
 */
export async function insertAutoReply(tx: Knex.Transaction, accountId: string, m: NewMessage): Promise<void> {
  await run(
    tx,
    sql`WITH job AS (
          ${insertJobsSql("send_message", {
            id: sql`${m.jobId}::uuid`,
            accountId: sql`${accountId}::uuid`,
            payload: sql`jsonb_build_object('messageId', ${m.id}::uuid)`,
            runAt: sql`${m.scheduledAt}::timestamptz`,
          })}
        ), stored AS (
          INSERT INTO messages (id, account_id, job_id, recipient, sender, body, scheduled_at, segments, encoding, bypasses_opt_out, country)
          VALUES (${m.id}, ${accountId}, ${m.jobId}, ${m.to}, ${m.from}, ${m.body}, ${m.scheduledAt}, ${m.segments}, ${m.encoding}, true, ${countryOf(m.to)})
          RETURNING ${STORED_COUNTED_COLUMNS}
        )
        ${countStoredEventsSql("stored")}`,
  );
  await notifyWorkers(tx, m.scheduledAt);
}

export interface NewInboundMessage {
  id: string;
  from: string;
  to: string;
  body: string;
  segments: number;
  encoding: Encoding;
  receivedAt: Date;
  incomplete: boolean;
}

/** Stores an inbound message: recipient is the account's number, sender the person. */
export async function insertInboundMessage(db: Knex, accountId: string, m: NewInboundMessage): Promise<void> {
  await run(
    db,
    sql`WITH stored AS (
          INSERT INTO messages (id, account_id, direction, recipient, sender, body, status, received_at, incomplete, segments, encoding, country)
          VALUES (${m.id}, ${accountId}, 'inbound', ${m.to}, ${m.from}, ${m.body}, 'received', ${m.receivedAt}, ${m.incomplete}, ${m.segments},
                  ${m.encoding}, ${countryOf(m.from)})
          RETURNING ${STORED_COUNTED_COLUMNS}
        )
        ${countStoredEventsSql("stored")}`,
  );
}
