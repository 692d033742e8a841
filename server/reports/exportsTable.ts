// Exports (docs/EXPORTS.md): an account's rows as a file, in constant memory however many rows, from one
// consistent snapshot. CSV is written by PostgreSQL itself (COPY … TO STDOUT WITH (FORMAT csv), streamed by
// pg-copy-streams): the rows never become objects in Node, which made CSV cost 2.5 times the read (bench/NOTES.md).
// NDJSON is read through a server-side cursor a batch at a time and made in Node.
import type { Knex } from "knex";
import type pg from "pg";
import { to as copyTo } from "pg-copy-streams";
import { FORMULA_CELL, PHONE_NUMBER } from "../domain/spreadsheet.js";
import { isOptedOutSql } from "../db/optOuts.js";
import { sql, type Sql } from "../db/sql.js";

/**
 * A column of an export: `text` is free text a spreadsheet could read as a formula; `flag` a boolean (written
 * true/false in CSV); `value` anything else (an id, a number, a time: never starts with a formula's mark).
 */
interface Column {
  name: string;
  expr: Sql;
  kind: "text" | "flag" | "value";
}

/** What to export: its columns and the rest of the SELECT (FROM, WHERE, ORDER BY). */
export interface ExportQuery {
  columns: readonly Column[];
  from: Sql;
}

/** A time as the file writes it (ISO 8601 UTC, milliseconds): made by PostgreSQL, not parsed into a Date and back. */
const iso = (column: string) => sql.raw(`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);
/** A column of the table by its name (`column`, default the export's name), or an expression. */
const cell = (expr: string | Sql): Sql => (typeof expr === "string" ? sql.raw(expr) : expr);
const text = (name: string, expr: string | Sql = name): Column => ({ name, expr: cell(expr), kind: "text" });
const value = (name: string, expr: string | Sql = name): Column => ({ name, expr: cell(expr), kind: "value" });

/** Rows fetched per round trip of the NDJSON cursor: a round trip is cheap per row, the batch small to hold. */
const FETCH_ROWS = 2_000;

/** A cell a spreadsheet would run as a formula gets a leading ' (domain/spreadsheet.ts says which). */
function spreadsheetSafe(expr: Sql): Sql {
  const formula = sql.raw(`'${FORMULA_CELL}'`);
  const phone = sql.raw(`'${PHONE_NUMBER.source}'`);
  return sql`CASE WHEN ${expr} ~ ${formula} AND ${expr} !~ ${phone} THEN '''' || ${expr} ELSE ${expr} END`;
}

const select = (q: ExportQuery, csv: boolean) =>
  sql`SELECT ${sql.join(
    q.columns.map((c) => {
      const expr =
        !csv || c.kind === "value"
          ? c.expr
          : c.kind === "text"
            ? spreadsheetSafe(c.expr)
            : sql`CASE WHEN ${c.expr} THEN 'true' ELSE 'false' END`;
      return sql`${expr} AS ${sql.raw(`"${c.name}"`)}`;
    }),
  )} ${q.from}`;

/**
 * The export as CSV, a chunk at a time as PostgreSQL writes it (RFC 4180 with a header row, every value
 * quoted and a null an empty unquoted field). The client's pace holds the COPY back (the connection's socket is
 * paused); when the client leaves, the COPY is cancelled and read to its end, and the connection goes back.
 */
export async function* exportCsv(db: Knex, q: ExportQuery): AsyncGenerator<Buffer> {
  const connection = (await db.client.acquireConnection()) as pg.Client;
  const copy = connection.query(copyTo(`COPY (${sql.inline(select(q, true))}) TO STDOUT WITH (FORMAT csv, HEADER, FORCE_QUOTE *)`));
  const over = new Promise<void>((resolve) => {
    copy.once("end", resolve);
    copy.once("error", () => resolve());
  });
  let finished = false;
  try {
    for await (const chunk of copy.iterator({ destroyOnReturn: false })) yield chunk as Buffer;
    finished = true;
  } finally {
    if (!finished) {
      copy.resume();
      await db.client.cancelQuery(connection);
      await over;
    }
    await db.client.releaseConnection(connection);
  }
}

/**
 * The export's rows a batch at a time, through a cursor in a read-only transaction. The transaction (and its
 * connection) is held until the caller stops pulling: a client that stops reading holds one connection.
 */
export async function* exportRows(db: Knex, q: ExportQuery): AsyncGenerator<Record<string, unknown>[]> {
  const tx = await db.transaction(undefined, { readOnly: true });
  try {
    const { text, bindings } = select(q, false).toKnex();
    await tx.raw(`DECLARE export_rows NO SCROLL CURSOR FOR ${text}`, bindings as Knex.RawBinding[]);
    for (;;) {
      const { rows } = await tx.raw<{ rows: Record<string, unknown>[] }>(`FETCH ${FETCH_ROWS} FROM export_rows`);
      if (rows.length === 0) break;
      yield rows;
      if (rows.length < FETCH_ROWS) break;
    }
    await tx.commit();
  } finally {
    if (!tx.isCompleted()) await tx.rollback().catch(() => undefined);
  }
}

export interface MessageExportFilter {
  since?: Date;
  until?: Date;
  statuses?: readonly string[];
  direction?: "outbound" | "inbound";
  campaignId?: string;
}

const MESSAGE_COLUMNS: Column[] = [
  value("messageId", "id"),
  value("direction"),
  text("from", "sender"),
  text("to", "recipient"),
  text("body"),
  value("status", sql`CASE WHEN status = 'sending' THEN 'scheduled' ELSE status END`),
  value("category", sql`CASE WHEN direction = 'inbound' THEN NULL ELSE category END`),
  value("priority", sql`CASE WHEN direction = 'inbound' THEN NULL ELSE priority END`),
  value("segments"),
  value("encoding"),
  value("country"),
  value("campaignId", "campaign_id"),
  value("batchId", "batch_id"),
  text("reference"),
  value("connectorId", "connector_id"),
  text("errorCode", "error_code"),
  text("errorMessage", "error_message"),
  value("createdAt", iso("created_at")),
  value("scheduledAt", iso("scheduled_at")),
  value("sentAt", iso("sent_at")),
  value("deliveredAt", iso("delivered_at")),
  value("cancelledAt", iso("cancelled_at")),
  value("receivedAt", iso("received_at")),
  // Its price in micro-units of its currency (docs/BILLING.md), empty when the account had no price list.
  value("priceAmount", "price_amount"),
  value("priceCurrency", "price_currency"),
  value("pricePerSegment", "price_per_segment"),
];

/** An account's messages, oldest first (messages_account_page_idx walked backwards), test ones included. */
export function messageExport(accountId: string, f: MessageExportFilter): ExportQuery {
  const filters: Sql[] = [sql`account_id = ${accountId}::uuid`];
  if (f.since) filters.push(sql`created_at >= ${f.since.toISOString()}::timestamptz`);
  if (f.until) filters.push(sql`created_at < ${f.until.toISOString()}::timestamptz`);
  if (f.statuses) filters.push(sql`status = ANY(${[...f.statuses]}::text[])`);
  if (f.direction) filters.push(sql`direction = ${f.direction}`);
  if (f.campaignId) filters.push(sql`campaign_id = ${f.campaignId}::uuid`);
  return {
    columns: MESSAGE_COLUMNS,
    from: sql`FROM messages WHERE ${sql.join(filters, " AND ")} ORDER BY account_id, created_at, id`,
  };
}

export function contactExport(accountId: string): ExportQuery {
  return {
    columns: [
      value("contactId", "id"),
      text("phone"),
      text("firstName", "first_name"),
      // The first of its groups, as the API's groupId (contact_groups_pkey).
      value(
        "groupId",
        "(SELECT cg.group_id FROM contact_groups cg WHERE cg.contact_id = contacts.id AND cg.account_id = contacts.account_id ORDER BY cg.position LIMIT 1)",
      ),
      value("timeZone", "time_zone"),
      { name: "optedOut", expr: isOptedOutSql("contacts.account_id", "contacts.phone"), kind: "flag" },
      value("createdAt", iso("created_at")),
      value("updatedAt", iso("updated_at")),
    ],
    from: sql`FROM contacts WHERE account_id = ${accountId}::uuid ORDER BY account_id, created_at, id`,
  };
}

export function optOutExport(accountId: string): ExportQuery {
  return {
    columns: [text("phone"), value("source"), text("keyword"), value("createdAt", iso("created_at"))],
    from: sql`FROM opt_outs WHERE account_id = ${accountId}::uuid ORDER BY account_id, created_at, id`,
  };
}
