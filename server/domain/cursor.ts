import { invalidField } from "./errors.js";

// Keyset pagination over (created_at DESC, id DESC); the SQL half is db/newestFirstPage.ts. The cursor is opaque to clients: base64url JSON of the
// last item's sort key, so a page stays stable while new rows arrive. The timestamp is kept to the
// microsecond, as PostgreSQL stores it: a JS Date (milliseconds) would skip rows created in the same
// millisecond as the page's last one (60 contacts imported in one statement share one now()).
export interface CursorKey {
  /** created_at to the microsecond, ISO 8601 in UTC, as selected by db/newestFirstPage.ts. */
  cursorAt: string;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// Milliseconds too: cursors handed out before the microsecond fix stay valid while a client pages on.
const EXACT_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}(\d{3})?Z$/;

/**
 * A time that names itself: JavaScript rolls 30 February into March, and PostgreSQL refuses the year 0000 (an
 * error, not a page); a cursor this API wrote reads back the same to the millisecond.
 */
function isRealInstant(at: string): boolean {
  const ms = Date.parse(at);
  return !Number.isNaN(ms) && !at.startsWith("0000") && new Date(ms).toISOString().slice(0, 23) === at.slice(0, 23);
}

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify([key.cursorAt, key.id])).toString("base64url");
}

/** The ids of a list's rows: uuids, except where a list says otherwise (API key ids). */
export function decodeCursor(cursor: string | undefined, idPattern: RegExp = UUID): CursorKey | undefined {
  if (cursor === undefined) return undefined;
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [unknown, unknown];
    if (typeof at !== "string" || !EXACT_UTC.test(at) || !isRealInstant(at)) throw new Error("bad cursor");
    if (typeof id !== "string" || !idPattern.test(id)) throw new Error("bad cursor");
    return { cursorAt: at, id };
  } catch {
    throw invalidField("/query/cursor", "is not a cursor returned by this API");
  }
}

/** Given limit+1 rows, the page of `limit` rows and the cursor of the next page. */
export function pageOf<T extends CursorKey>(rows: T[], limit: number): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
}

/**
 * One page of a keyset-paginated list: asks `fetch` for one row more than `limit` after the cursor's key,
 * so the presence of a next page is known without counting.
 */
export async function fetchPage<T extends CursorKey>(
  query: { limit?: number; cursor?: string },
  fetch: (window: { after?: CursorKey; limit: number }) => Promise<T[]>,
  idPattern?: RegExp,
): Promise<{ items: T[]; nextCursor: string | null }> {
  const limit = query.limit ?? 50;
  return pageOf(await fetch({ after: decodeCursor(query.cursor, idPattern), limit: limit + 1 }), limit);
}

/**
 * A page of a search that looks through a bounded window of rows (db/messages/search.ts): given up to limit+1
 * matches, the page and its cursor; a page that found too few before its window ran out continues from
 * `scannedTo`, the last row it looked at.
 */
export function searchPageOf<T extends CursorKey>(
  rows: T[],
  limit: number,
  scannedTo: CursorKey | undefined,
): { items: T[]; nextCursor: string | null } {
  const page = pageOf(rows, limit);
  return page.nextCursor === null && scannedTo ? { ...page, nextCursor: encodeCursor(scannedTo) } : page;
}
