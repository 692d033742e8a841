// Exports (docs/EXPORTS.md): an account's rows read through a server-side cursor, a batch at a time, in one
// read-only transaction: constant memory however many rows, and one consistent snapshot of them.
import type { Knex } from "knex";
import { isOptedOutSql } from "./optOuts.js";
import { sql, type Sql } from "./sql.js";

/** A time as the file writes it (ISO 8601 UTC, milliseconds): made by PostgreSQL, not parsed into a Date and back. */
const iso = (column: string) => sql.raw(`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

/** Rows fetched per round trip: big enough that a round trip is cheap per row, small enough to hold. */
const FETCH_ROWS = 5_000;

export interface MessageExportFilter {
  since?: Date;
  until?: Date;
  statuses?: readonly string[];
  direction?: "outbound" | "inbound";
  campaignId?: string;
}

/**
 * Yields the rows of `query` a batch at a time. The transaction (and its connection) is held until the caller
 * stops pulling: a client that stops reading holds one connection, as long as its response stays open.
 */
async function* cursorRows<R>(db: Knex, query: Sql): AsyncGenerator<R[]> {
  const tx = await db.transaction(undefined, { readOnly: true });
  try {
    const { text, bindings } = query.toKnex();
    await tx.raw(`DECLARE export_rows NO SCROLL CURSOR FOR ${text}`, bindings as Knex.RawBinding[]);
    for (;;) {
      const { rows } = await tx.raw<{ rows: R[] }>(`FETCH ${FETCH_ROWS} FROM export_rows`);
      if (rows.length === 0) break;
      yield rows;
      if (rows.length < FETCH_ROWS) break;
    }
    await tx.commit();
  } finally {
    if (!tx.isCompleted()) await tx.rollback().catch(() => undefined);
  }
}

export interface MessageExportRow {
  messageId: string;
  direction: string;
  from: string;
  to: string;
  body: string;
  status: string;
  category: string;
  priority: string;
  segments: number;
  encoding: string;
  country: string | null;
  campaignId: string | null;
  batchId: string | null;
  reference: string | null;
  connectorId: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  createdAt: string;
  scheduledAt: string | null;
  sentAt: string | null;
  deliveredAt: string | null;
  cancelledAt: string | null;
  receivedAt: string | null;
}

/** An account's messages, oldest first (messages_account_page_idx walked backwards), test ones included. */
export function exportMessages(db: Knex, accountId: string, f: MessageExportFilter): AsyncGenerator<MessageExportRow[]> {
  const filters: Sql[] = [sql`account_id = ${accountId}::uuid`];
  if (f.since) filters.push(sql`created_at >= ${f.since.toISOString()}::timestamptz`);
  if (f.until) filters.push(sql`created_at < ${f.until.toISOString()}::timestamptz`);
  if (f.statuses) filters.push(sql`status = ANY(${[...f.statuses]}::text[])`);
  if (f.direction) filters.push(sql`direction = ${f.direction}`);
  if (f.campaignId) filters.push(sql`campaign_id = ${f.campaignId}::uuid`);
  return cursorRows(
    db,
    sql`SELECT id AS "messageId", direction, sender AS "from", recipient AS "to", body,
               CASE WHEN status = 'sending' THEN 'scheduled' ELSE status END AS status,
               CASE WHEN direction = 'inbound' THEN NULL ELSE category END AS category,
               CASE WHEN direction = 'inbound' THEN NULL ELSE priority END AS priority, segments, encoding, country,
               campaign_id AS "campaignId", batch_id AS "batchId", reference, connector_id AS "connectorId",
               error_code AS "errorCode", error_message AS "errorMessage", ${iso("created_at")} AS "createdAt",
               ${iso("scheduled_at")} AS "scheduledAt", ${iso("sent_at")} AS "sentAt", ${iso("delivered_at")} AS "deliveredAt",
               ${iso("cancelled_at")} AS "cancelledAt", ${iso("received_at")} AS "receivedAt"
          FROM messages WHERE ${sql.join(filters, " AND ")}
         ORDER BY account_id, created_at, id`,
  );
}

export interface ContactExportRow {
  contactId: string;
  phone: string;
  firstName: string | null;
  groupId: string | null;
  timeZone: string | null;
  optedOut: boolean;
  createdAt: string;
  updatedAt: string;
}

export function exportContacts(db: Knex, accountId: string): AsyncGenerator<ContactExportRow[]> {
  return cursorRows(
    db,
    sql`SELECT id AS "contactId", phone, first_name AS "firstName", group_id AS "groupId", time_zone AS "timeZone",
               ${sql.raw(isOptedOutSql("contacts.account_id", "contacts.phone"))} AS "optedOut",
               ${iso("created_at")} AS "createdAt", ${iso("updated_at")} AS "updatedAt"
          FROM contacts WHERE account_id = ${accountId}::uuid
         ORDER BY account_id, created_at, id`,
  );
}

export interface OptOutExportRow {
  phone: string;
  source: string;
  keyword: string | null;
  createdAt: string;
}

export function exportOptOuts(db: Knex, accountId: string): AsyncGenerator<OptOutExportRow[]> {
  return cursorRows(
    db,
    sql`SELECT phone, source, keyword, ${iso("created_at")} AS "createdAt" FROM opt_outs
         WHERE account_id = ${accountId}::uuid ORDER BY account_id, created_at, id`,
  );
}
