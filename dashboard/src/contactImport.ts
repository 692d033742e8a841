// The CSV import workflow of the Contacts page, apart from the page so it can be tested: rows read from the
// file (csv.ts) are checked for what the API would refuse as a whole request, cut into import requests that
// stay under its row and body limits, sent one after the other, and every row error the API answers (row n of
// that request) is turned back into the line of the file it came from.
// Types from the generated client, not ./api.js: this module runs in the unit tests, outside a browser.
import type { components } from "../../client/http.js";
import type { ContactRow } from "./csv.js";

type ImportRow = components["schemas"]["ImportContactRow"];
type ImportError = components["schemas"]["ImportRowError"];
type ImportResult = components["schemas"]["ImportContactsResult"];

/** The API takes up to 10,000 rows per request and a JSON body up to 1 MiB; these keep well inside both. */
export const MAX_ROWS_PER_REQUEST = 5000;
export const MAX_BYTES_PER_REQUEST = 512 * 1024;

export interface LineError {
  /** 1-based line of the file where the row starts. */
  line: number;
  field: string;
  detail: string;
}

export interface ImportOutcome {
  imported: number;
  /** Rows of the file not imported: refused here, refused by the API, or never sent after a failed request. */
  failed: number;
  /** Ordered by line. */
  errors: LineError[];
  /** Set when a request failed as a whole: its rows and those after it were not imported (or not known to be). */
  stopped?: { fromLine: number; detail: string };
}

/** A row the API would refuse as a whole request (over a field's length in the request schema), or undefined. */
export function localProblem(row: ContactRow): LineError | undefined {
  if (!row.phone) return { line: row.line, field: "phone", detail: "The phone number is missing." };
  if (row.phone.length > 64) return { line: row.line, field: "phone", detail: "The phone number is longer than 64 characters." };
  if ((row.firstName?.length ?? 0) > 100)
    return { line: row.line, field: "firstName", detail: "The first name is longer than 100 characters." };
  if ((row.lastName?.length ?? 0) > 100)
    return { line: row.line, field: "lastName", detail: "The last name is longer than 100 characters." };
  if (row.tags.length > 20) return { line: row.line, field: "tags", detail: "More than 20 tags." };
  if ((row.group?.length ?? 0) > 1000) return { line: row.line, field: "group", detail: "The group is longer than 1000 characters." };
  return undefined;
}

export const toImportRow = (row: ContactRow): ImportRow => ({
  phone: row.phone,
  firstName: row.firstName,
  group: row.group,
  ...(row.lastName ? { lastName: row.lastName } : {}),
  ...(row.tags.length > 0 ? { tags: row.tags } : {}),
  ...(Object.keys(row.customFields).length > 0 ? { customFields: row.customFields } : {}),
  ...(row.timeZone ? { timeZone: row.timeZone } : {}),
});

const encoder = new TextEncoder();
/** Bytes the row adds to the request body, with its separating comma. */
const rowBytes = (row: ContactRow) => encoder.encode(JSON.stringify(toImportRow(row))).length + 1;
const ENVELOPE_BYTES = encoder.encode('{"contacts":[]}').length;

/** The rows in file order, cut into requests of at most `maxRows` rows and `maxBytes` bytes of JSON body. */
export function chunkRows(rows: ContactRow[], maxRows = MAX_ROWS_PER_REQUEST, maxBytes = MAX_BYTES_PER_REQUEST): ContactRow[][] {
  const chunks: ContactRow[][] = [];
  let chunk: ContactRow[] = [];
  let bytes = ENVELOPE_BYTES;
  for (const row of rows) {
    const size = rowBytes(row);
    if (chunk.length > 0 && (chunk.length === maxRows || bytes + size > maxBytes)) {
      chunks.push(chunk);
      chunk = [];
      bytes = ENVELOPE_BYTES;
    }
    chunk.push(row);
    bytes += size;
  }
  if (chunk.length > 0) chunks.push(chunk);
  return chunks;
}

/**
 * The API's row errors for one request (`row` is 1-based within it), at the lines of the file; a row a detail
 * names ("already in row 1 of this import") is named by its line too, as the table of failed rows numbers them.
 */
export function lineErrors(chunk: ContactRow[], errors: ImportError[]): LineError[] {
  return errors.map((e) => {
    const row = chunk[e.row - 1];
    if (!row) throw new Error(`the API reported row ${e.row} of a request of ${chunk.length} rows`);
    const detail = e.detail.replace(/\brow (\d+) of this import\b/, (said, n: string) => {
      const named = chunk[Number(n) - 1];
      return named ? `line ${named.line} of the file` : said;
    });
    return { line: row.line, field: e.field, detail };
  });
}

/** Sends one import request; the page passes the API client's, the tests a real server's. */
export type SendImport = (rows: ImportRow[]) => Promise<ImportResult>;

/** The longest Retry-After the import waits out by itself; a longer one stops it (the user can import again). */
export const MAX_RATE_LIMIT_WAIT_SECONDS = 300;

export interface ImportOptions {
  maxRows?: number;
  maxBytes?: number;
  /**
   * Called before the import waits out a 429 (an imported row costs a rate-limit token, so a big file spends
   * the key's tokens): how long, and the first line of the request it then sends again.
   */
  onWait?: (seconds: number, fromLine: number) => void;
  /** How to wait; a real timer by default. */
  sleep?: (ms: number) => Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The Retry-After of a rate-limit refusal (an ApiProblem with status 429), else undefined. */
function rateLimitWait(error: unknown): number | undefined {
  const e = error as { status?: unknown; retryAfterSeconds?: unknown };
  return e.status === 429 && typeof e.retryAfterSeconds === "number" ? e.retryAfterSeconds : undefined;
}

/**
 * Imports the rows: the ones refused here are reported and not sent, the others go in order, one request at a
 * time. A rate-limit refusal (429) is waited out (up to MAX_RATE_LIMIT_WAIT_SECONDS) and the same request sent
 * again: nothing of it was stored. Any other request that fails as a whole (network, server) stops the import;
 * what was imported stays.
 */
export async function importContactRows(rows: ContactRow[], send: SendImport, options: ImportOptions = {}): Promise<ImportOutcome> {
  const sleep = options.sleep ?? realSleep;
  const errors: LineError[] = [];
  const sendable: ContactRow[] = [];
  for (const row of rows) {
    const problem = localProblem(row);
    if (problem) errors.push(problem);
    else sendable.push(row);
  }
  let imported = 0;
  let stopped: ImportOutcome["stopped"];
  chunks: for (const chunk of chunkRows(sendable, options.maxRows, options.maxBytes)) {
    for (;;) {
      try {
        const answer = await send(chunk.map(toImportRow));
        imported += answer.imported;
        errors.push(...lineErrors(chunk, answer.errors));
        continue chunks;
      } catch (error) {
        const wait = rateLimitWait(error);
        if (wait === undefined || wait > MAX_RATE_LIMIT_WAIT_SECONDS) {
          stopped = { fromLine: chunk[0]!.line, detail: (error as Error).message };
          break chunks;
        }
        options.onWait?.(wait, chunk[0]!.line);
        await sleep(wait * 1000);
      }
    }
  }
  errors.sort((a, b) => a.line - b.line);
  return { imported, failed: rows.length - imported, errors, ...(stopped ? { stopped } : {}) };
}
