// Exports (docs/EXPORTS.md): an account's rows as CSV (written by PostgreSQL's COPY) or NDJSON (a cursor batch
// at a time), streamed, so memory stays flat however many rows there are.
import type { Db } from "../db/knex.js";
import {
  contactExport,
  exportCsv,
  exportRows,
  messageExport,
  optOutExport,
  type ExportQuery,
  type MessageExportFilter,
} from "./exportsTable.js";
import { storedStatuses, type MessageStatus } from "../domain/messageStatus.js";

export type ExportFormat = "csv" | "ndjson";

export interface ExportFile {
  contentType: string;
  filename: string;
  chunks: AsyncIterable<string | Buffer>;
}

/** The export's rows as the file's pieces: CSV as PostgreSQL writes it, or a JSON object a line. */
async function* chunksOf(db: Db, q: ExportQuery, format: ExportFormat): AsyncGenerator<string | Buffer> {
  if (format === "csv") yield* exportCsv(db, q);
  else for await (const batch of exportRows(db, q)) yield batch.map((r) => JSON.stringify(r)).join("\n") + "\n";
}

function file(db: Db, name: string, q: ExportQuery, format: ExportFormat, now: Date): ExportFile {
  return {
    contentType: format === "csv" ? "text/csv" : "application/x-ndjson",
    filename: `${name}-${now.toISOString().slice(0, 10)}.${format === "csv" ? "csv" : "ndjson"}`,
    chunks: chunksOf(db, q, format),
  };
}

export function messagesExport(
  db: Db,
  accountId: string,
  q: Omit<MessageExportFilter, "statuses"> & { statuses?: MessageStatus[]; format?: ExportFormat },
  now: Date,
): ExportFile {
  const statuses = q.statuses?.flatMap((s) => storedStatuses(s));
  return file(db, "messages", messageExport(accountId, { ...q, statuses }), q.format ?? "csv", now);
}

export function contactsExport(db: Db, accountId: string, format: ExportFormat = "csv", now: Date): ExportFile {
  return file(db, "contacts", contactExport(accountId), format, now);
}

export function optOutsExport(db: Db, accountId: string, format: ExportFormat = "csv", now: Date): ExportFile {
  return file(db, "opt-outs", optOutExport(accountId), format, now);
}
