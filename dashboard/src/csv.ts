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
  lastName: string | null;
  group: string | null;
  timeZone: string | null;
  /** From a tags column: its values split at `;` or `,`. */
  tags: string[];
  /** From columns mapped to custom fields: key → value (empty cells left out). */
  customFields: Record<string, string>;
}

/** What a column of the file becomes: a field of the contact, one of its custom fields, or nothing. */
export type ColumnUse =
  { to: "phone" | "firstName" | "lastName" | "group" | "timeZone" | "tags" } | { to: "custom"; key: string } | { to: "ignore" };

export interface ContactCsv {
  rows: ContactRow[];
  /** True when the first line was a header (it names a phone column). */
  header: boolean;
  /** The header's cells (empty without a header). */
  columns: string[];
  /** What each column became, in the file's order. */
  mapping: ColumnUse[];
  /** The header's columns that name no contact field, and were ignored unless the mapping said otherwise. */
  unknown: string[];
  /** The first row's cells as read, to show beside the columns. */
  sample: string[];
}

const FIELDS: Record<string, Exclude<ColumnUse, { to: "custom" | "ignore" }>["to"]> = {
  phone: "phone",
  phonenumber: "phone",
  mobile: "phone",
  firstname: "firstName",
  lastname: "lastName",
  surname: "lastName",
  group: "group",
  groupid: "group",
  groupname: "group",
  timezone: "timeZone",
  tags: "tags",
};

const squeezed = (cell: string) =>
  cell
    .trim()
    .toLowerCase()
    .replace(/[\s_-]/g, "");

/** A custom field's key from a column's name ("Loyalty plan" → "loyalty_plan"), or undefined if none can be made. */
export function customKeyOf(cell: string): string | undefined {
  const key = cell
    .trim()
    .toLowerCase()
    .replace(/^custom\./, "")
    .replace(/[^a-z0-9_]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 40);
  return /^[a-z][a-z0-9_]*$/.test(key) ? key : undefined;
}

/** The use a header's column is given by its name: a contact field, `custom.key`, or ignored (unknown). */
export function guessColumnUse(cell: string): ColumnUse {
  const field = FIELDS[squeezed(cell)];
  if (field) return { to: field };
  if (/^custom\./i.test(cell.trim())) {
    const key = customKeyOf(cell);
    if (key) return { to: "custom", key };
  }
  return { to: "ignore" };
}

/** Without a header: phone, firstName, group, timeZone by position. */
const POSITIONAL: ColumnUse[] = [{ to: "phone" }, { to: "firstName" }, { to: "group" }, { to: "timeZone" }];

/**
 * The file's contacts. A first line that names a phone column is a header: each column is used as its name says
 * (any order, case, spaces or `_`), `custom.<key>` a custom field, and any other column is ignored and listed in
 * `unknown` (an import never fails for a column it does not know); `mapping` overrides what the header says, one
 * use per column. Without a header: `phone,firstName[,group[,timeZone]]`.
 */
export function contactsFromCsv(text: string, mapping?: ColumnUse[]): ContactCsv {
  const records = parseCsv(text);
  const first = records[0];
  const header = !!first && first.fields.some((cell) => guessColumnUse(cell).to === "phone");
  const columns = header ? first.fields : [];
  const guessed = header ? columns.map(guessColumnUse) : POSITIONAL;
  const uses = mapping ?? guessed;
  const unknown = header ? columns.filter((cell, i) => cell.trim() && guessed[i]!.to === "ignore") : [];
  const rows = (header ? records.slice(1) : records).map(({ line, fields }) => {
    const row: ContactRow = { line, phone: "", firstName: null, lastName: null, group: null, timeZone: null, tags: [], customFields: {} };
    fields.forEach((value, i) => {
      const use = uses[i];
      const v = value.trim();
      if (!use || use.to === "ignore") return;
      if (use.to === "phone") row.phone = v;
      else if (use.to === "tags")
        row.tags.push(
          ...v
            .split(/[;,]/)
            .map((t) => t.trim())
            .filter(Boolean),
        );
      else if (use.to === "custom") {
        if (v !== "") row.customFields[use.key] = v;
      } else row[use.to] = v === "" ? null : v;
    });
    return row;
  });
  const sample = (header ? records[1] : records[0])?.fields ?? [];
  return { rows, header, columns, mapping: uses, unknown, sample };
}
