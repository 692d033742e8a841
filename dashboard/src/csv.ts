// CSV for the contacts import: RFC 4180 (comma separated, "quoted" fields with "" for a quote, fields may span
// lines inside quotes, CRLF or LF), parsed in the browser. Every record keeps the line it starts on, so an
// error the API reports for row n of the request can be shown at the line of the file it came from.

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

export function parseCsv(text: string): CsvRecord[] {
  const src = text.replace(/^\uFEFF/, "");
  const records: CsvRecord[] = [];
  let fields: string[] = [];
  let field = "";
  let line = 1;
  let recordLine = 1;
  let quoted = false;
  let quoteStart = 0;
  let fieldStarted = false; // something (even "") was read for the current field
  const endRecord = () => {
    fields.push(field);
    // A blank line is no record.
    if (!(fields.length === 1 && fields[0]!.trim() === "" && !fieldStarted)) records.push({ line: recordLine, fields });
    fields = [];
    field = "";
    fieldStarted = false;
  };
  for (let i = 0; i < src.length; i++) {
    const ch = src[i]!;
    if (quoted) {
      if (ch === '"') {
        if (src[i + 1] === '"') {
          field += '"';
          i++;
        } else {
          quoted = false;
        }
      } else {
        if (ch === "\n") line++;
        field += ch;
      }
      continue;
    }
    if (ch === '"') {
      if (field.trim() !== "")
        throw new CsvError(line, "a quote inside an unquoted field; put the whole field in quotes and double the quote");
      field = "";
      quoted = true;
      quoteStart = line;
      fieldStarted = true;
    } else if (ch === ",") {
      fields.push(field);
      field = "";
      fieldStarted = true;
    } else if (ch === "\r" || ch === "\n") {
      if (ch === "\r" && src[i + 1] === "\n") i++;
      endRecord();
      line++;
      recordLine = line;
    } else {
      field += ch;
      if (ch.trim() !== "") fieldStarted = true;
    }
  }
  if (quoted) throw new CsvError(quoteStart, "a quoted field is never closed");
  if (field !== "" || fields.length > 0 || fieldStarted) endRecord();
  return records;
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
