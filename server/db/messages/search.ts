// A search over an account's messages: text (`q`) and number prefixes (`to`, `from`). A page looks through at
// most `scanRows` messages, newest first from the cursor on (the list's own filters and index narrow them
// first: the account's page index, a status's or a campaign's, `since`/`until`), and keeps those that match.
// Its time is bounded however many messages the account has and however rare the match, and nothing is indexed
// for it on the send path (a trigram index would cost every message its WAL). When the window is used up before
// the page is full, the key of the last message looked at is where the next page searches on: a page may hold
// fewer than `limit` items, even none, and still have a next cursor.
import type { Knex } from "knex";
import type { CursorKey } from "../../domain/cursor.js";
import { sql } from "../sql.js";
import type { MessageRow } from "./rows.js";

export interface MessageSearch {
  /** Text the body contains, in any case. */
  q?: string;
  /** E.164 digits the recipient starts with (a leading + optional). */
  to?: string;
  /** What the sender starts with: a number's digits (a leading + optional), or a sender ID in any case. */
  from?: string;
}

export const isSearch = (s: MessageSearch) => s.q !== undefined || s.to !== undefined || s.from !== undefined;

/** `%`, `_` and `\` taken literally in a LIKE pattern (ESCAPE '\'). */
const literal = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The search's predicate over the scanned rows (named as `columns` names them: "body", "to", "from"). */
function matches(search: MessageSearch) {
  const parts = [];
  if (search.q !== undefined) parts.push(sql`"body" ILIKE ${`%${literal(search.q)}%`} ESCAPE '\\'`);
  if (search.to !== undefined) parts.push(sql`"to" LIKE ${`+${literal(search.to.replace(/^\+/, ""))}%`} ESCAPE '\\'`);
  if (search.from !== undefined) {
    const prefix = literal(search.from.toLowerCase());
    parts.push(sql`(lower("from") LIKE ${`${prefix}%`} ESCAPE '\\' OR "from" LIKE ${`+${prefix.replace(/^\+/, "")}%`} ESCAPE '\\')`);
  }
  return parts.reduce((all, part) => sql`${all} AND ${part}`);
}

type Row = MessageRow & CursorKey & { scanEnd: boolean };

/**
 * The matches among the next `scanRows` rows of `list` (the account's messages with the list's filters and its
 * cursor, ordered newest first, selecting `columns` and cursorAt), at most `limit`; and, when all `scanRows`
 * were looked at, the key of the last one, where the next page searches on.
 */
export async function searchPage(
  db: Knex,
  list: Knex.QueryBuilder,
  search: MessageSearch,
  opts: { limit: number; scanRows: number },
): Promise<{ rows: (MessageRow & CursorKey)[]; scannedTo: CursorKey | undefined }> {
  const scanned = list.clone().limit(opts.scanRows);
  const { rows } = await db.raw<{ rows: Row[] }>(
    `WITH scanned AS MATERIALIZED (?),
          hits AS (SELECT * FROM scanned WHERE ? ORDER BY "createdAt" DESC, id DESC LIMIT ?)
     SELECT *, false AS "scanEnd" FROM hits
     UNION ALL
     (SELECT *, true AS "scanEnd" FROM scanned WHERE (SELECT count(*) FROM scanned) = ? ORDER BY "createdAt", id LIMIT 1)`,
    [scanned, matches(search).forBuilder(db), opts.limit, opts.scanRows],
  );
  const end = rows.find((r) => r.scanEnd);
  return {
    rows: rows.filter((r) => !r.scanEnd).map(({ scanEnd: _scanEnd, ...row }) => row),
    scannedTo: end && { cursorAt: end.cursorAt, id: end.id },
  };
}
