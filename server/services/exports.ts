// Exports (docs/EXPORTS.md): an account's rows as CSV (RFC 4180, written by csv-stringify) or NDJSON, made a
// cursor batch at a time, so memory stays flat however many rows there are.
import { stringify } from "csv-stringify/sync";
import type { Db } from "../db/knex.js";
import { exportContacts, exportMessages, exportOptOuts, type MessageExportFilter } from "../db/exports.js";
import { storedStatuses, type MessageStatus } from "../domain/messageStatus.js";
import { spreadsheetSafe } from "../domain/spreadsheet.js";

export type ExportFormat = "csv" | "ndjson";

export interface ExportFile {
  contentType: string;
  filename: string;
  chunks: AsyncIterable<string>;
}

const MESSAGE_COLUMNS = [
  "messageId",
  "direction",
  "from",
  "to",
  "body",
  "status",
  "category",
  "priority",
  "segments",
  "encoding",
  "country",
  "campaignId",
  "batchId",
  "reference",
  "connectorId",
  "errorCode",
  "errorMessage",
  "createdAt",
  "scheduledAt",
  "sentAt",
  "deliveredAt",
  "cancelledAt",
  "receivedAt",
] as const;
const CONTACT_COLUMNS = ["contactId", "phone", "firstName", "groupId", "timeZone", "optedOut", "createdAt", "updatedAt"] as const;
const OPT_OUT_COLUMNS = ["phone", "source", "keyword", "createdAt"] as const;

/** A cell as text: times in ISO 8601 UTC, booleans as true/false, null as empty. */
const text = (v: unknown): string => (v === null || v === undefined ? "" : v instanceof Date ? v.toISOString() : String(v));

/** The rows of `batches` as the file's pieces: a header and each batch's lines (CSV), or a line per row. */
async function* lines<R extends object>(batches: AsyncIterable<R[]>, columns: readonly (keyof R & string)[], format: ExportFormat) {
  if (format === "csv") yield stringify([columns], { record_delimiter: "windows" });
  for await (const batch of batches) {
    if (format === "ndjson") {
      yield batch.map((r) => JSON.stringify(Object.fromEntries(columns.map((c) => [c, r[c] ?? null])))).join("\n") + "\n";
    } else {
      const records = batch.map((r) => columns.map((c) => spreadsheetSafe(text(r[c]))));
      // Phone numbers and any cell that starts with ' are quoted: a spreadsheet reads them as text.
      yield stringify(records, { record_delimiter: "windows", quoted_match: /^(\+|')/ });
    }
  }
}

function file(name: string, format: ExportFormat, chunks: AsyncIterable<string>, now: Date): ExportFile {
  return {
    contentType: format === "csv" ? "text/csv" : "application/x-ndjson",
    filename: `${name}-${now.toISOString().slice(0, 10)}.${format === "csv" ? "csv" : "ndjson"}`,
    chunks,
  };
}

export function messagesExport(
  db: Db,
  accountId: string,
  q: Omit<MessageExportFilter, "statuses"> & { statuses?: MessageStatus[]; format?: ExportFormat },
  now: Date,
): ExportFile {
  const format = q.format ?? "csv";
  const statuses = q.statuses?.flatMap((s) => storedStatuses(s));
  return file("messages", format, lines(exportMessages(db, accountId, { ...q, statuses }), MESSAGE_COLUMNS, format), now);
}

export function contactsExport(db: Db, accountId: string, format: ExportFormat = "csv", now: Date): ExportFile {
  return file("contacts", format, lines(exportContacts(db, accountId), CONTACT_COLUMNS, format), now);
}

export function optOutsExport(db: Db, accountId: string, format: ExportFormat = "csv", now: Date): ExportFile {
  return file("opt-outs", format, lines(exportOptOuts(db, accountId), OPT_OUT_COLUMNS, format), now);
}
