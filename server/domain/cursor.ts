import { invalidField } from "./errors.js";

// Keyset pagination over (created_at DESC, id DESC). The cursor is opaque to clients: base64url JSON of the
// last item's sort key, so a page stays stable while new rows arrive.
export interface CursorKey {
  createdAt: Date;
  id: string;
}

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify([key.createdAt.toISOString(), key.id])).toString("base64url");
}

export function decodeCursor(cursor: string | undefined): CursorKey | undefined {
  if (cursor === undefined) return undefined;
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [string, string];
    const createdAt = new Date(at);
    if (Number.isNaN(createdAt.getTime()) || !/^[0-9a-f-]{36}$/.test(id)) throw new Error("bad cursor");
    return { createdAt, id };
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
): Promise<{ items: T[]; nextCursor: string | null }> {
  const limit = query.limit ?? 50;
  return pageOf(await fetch({ after: decodeCursor(query.cursor), limit: limit + 1 }), limit);
}
