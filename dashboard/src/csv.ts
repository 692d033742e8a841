// CSV for the contacts import, read by csv-parse (RFC 4180: comma separated, "quoted" fields with "" for a quote,
// fields may span lines inside quotes, CRLF or LF), in the browser. Every record keeps the line it starts on, so
// an error the API reports for row n of the request can be shown at the line of the file it came from.
import { CsvError as ParseError, parse } from "csv-parse/browser/esm/sync";

export interface CsvRecord {
  /** 1-based line of the file where the record starts. */
  line: number;
  fields: string[];
}

export class CsvError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(`line ${line}: ${message}`);
  }
}

const LINE_BREAK = /\r\n|\r|\n/g;

/** The file's records, blank lines skipped; a byte order mark is ignored. */
export function parseCsv(text: string): CsvRecord[] {
  let parsed: { record: string[]; info: { lines: number } }[];
  try {
    parsed = parse(text, {
      bom: true,
      info: true,
      record_delimiter: ["\r\n", "\n", "\r"],
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
      trim: true,
    }) as never;
  } catch (error) {
    if (error instanceof ParseError && error.code === "CSV_QUOTE_NOT_CLOSED")
      throw new CsvError((error as ParseError & { lines: number }).lines, "a quoted field is never closed");
    if (error instanceof ParseError) throw new CsvError((error as ParseError & { lines: number }).lines ?? 0, error.message);
    throw error;
  }
  // csv-parse counts the line a record ends on; a record starts as many lines earlier as its quoted fields break.
  return parsed.map(({ record, info }) => ({
    line: info.lines - record.reduce((n, field) => n + (field.match(LINE_BREAK)?.length ?? 0), 0),
    fields: record,
  }));
}

export interface ContactRow {
  /** Line of the file. */
  line: number;
  phone: string;
  firstName: string | null;
  group: string | null;
  timeZone: string | null;
}

export interface ContactCsv {
  rows: ContactRow[];
  /** True when the first line was a header (phone,firstName,group in any order). */
  header: boolean;
}

const COLUMNS: Record<string, keyof Omit<ContactRow, "line">> = {
  phone: "phone",
  phonenumber: "phone",
  firstname: "firstName",
  group: "group",
  groupid: "group",
  groupname: "group",
  timezone: "timeZone",
};

const columnName = (cell: string) =>
  COLUMNS[
    cell
      .trim()
      .toLowerCase()
      .replace(/[\s_-]/g, "")
  ];

/** `phone,firstName[,group[,timeZone]]`, with or without a header line; a header may order the columns any way. */
export function contactsFromCsv(text: string): ContactCsv {
  const records = parseCsv(text);
  const first = records[0];
  const header = !!first && first.fields.some((cell) => columnName(cell) === "phone");
  let order: (keyof Omit<ContactRow, "line"> | undefined)[] = ["phone", "firstName", "group", "timeZone"];
  if (header) {
    order = first.fields.map(columnName);
    const unknown = first.fields.filter((cell) => cell.trim() && !columnName(cell));
    if (unknown.length)
      throw new CsvError(
        first.line,
        `unknown column ${unknown.map((c) => `"${c.trim()}"`).join(", ")}; the columns are phone, firstName, group and timeZone`,
      );
  }
  const rows = (header ? records.slice(1) : records).map(({ line, fields }) => {
    const row: ContactRow = { line, phone: "", firstName: null, group: null, timeZone: null };
    fields.forEach((value, i) => {
      const column = order[i];
      const v = value.trim();
      if (!column) return;
      if (column === "phone") row.phone = v;
      else row[column] = v === "" ? null : v;
    });
    return row;
  });
  return { rows, header };
}
