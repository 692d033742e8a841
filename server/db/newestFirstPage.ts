// Keyset pagination over (created_at DESC, id DESC), the order of every list of the API: the SQL half of the
// cursor (domain/cursor.ts encodes and decodes it). A row's cursorAt is its created_at to the microsecond, as
// PostgreSQL stores it, so rows written by one statement (one now()) are still told apart by their id.
import type { Knex } from "knex";
import type { CursorKey } from "../domain/cursor.js";
import { sql } from "./sql.js";

/** The select expression giving a row's cursorAt from its created_at column. */
export function cursorAtColumn(db: Knex, column: string): Knex.Raw {
  return sql`to_char(${sql.raw(column)} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "cursorAt"`.forBuilder(db);
}

/**
 * Finishes a list query: the rows after the cursor's key, newest first, at most `limit`. `prefix` qualifies the
 * columns when the query joins ("c.").
 */
export function newestFirstPage<Q extends Knex.QueryBuilder>(query: Q, after: CursorKey | undefined, limit: number, prefix = ""): Q {
  if (after) {
    const key = sql.raw(`(${prefix}created_at, ${prefix}id)`);
    query.where(sql`${key} < (${after.cursorAt}::timestamptz, ${after.id}::uuid)`.forBuilder(query.client));
  }
  return query
    .orderBy([
      { column: `${prefix}created_at`, order: "desc" },
      { column: `${prefix}id`, order: "desc" },
    ])
    .limit(limit) as Q;
}
