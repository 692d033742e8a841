// Statements that pick rows by a list of ids and also test their status must find them through the primary
// key. Written plainly, `status = 'scheduled'` proved the predicate of a partial list index such as
// messages_pending_page_idx (account_id, created_at, id) WHERE status IN ('scheduled', 'sending') before
// migration 064 (no index of messages holds the status now; other tables' still may); the planner
// may then walk that whole index for the ids (its last column) rather than look each one up. It does so when
// the statistics say few rows are in flight — the normal state of a long-lived database, whose messages are
// almost all final — and a burst then costs every statement the whole backlog (bench/NOTES.md, "Figures
// behind the code"; test/engine/burst-plans.test.ts checks the plans).
// `array_position(statuses, status) IS NOT NULL` means the same thing but proves no index predicate, so only
// the key is left. It also keeps the planner's row estimate: an IS NOT NULL on an expression is taken to keep
// nearly every row, where `(status || '') = 'x'` (the first form) was taken to keep 0.5 %. A window of 100 keys
// was then estimated at one row and joined to its 100 parameter rows by a nested loop, rescanning them for
// every message (10,000 comparisons) where a hash join does one pass.

import { sql, type Sql } from "./sql.js";

/** `alias`'s status is one of `statuses`, in a form no partial index's predicate can be proved from. */
export const statusInSql = (alias: string, statuses: readonly string[]): Sql =>
  sql`array_position(${statuses}::text[], ${sql.raw(alias)}.status) IS NOT NULL`;

// Every statement of an account's work names the account (docs/SCALING.md, "Every statement names its account"):
// rows picked by a list of keys are picked as `id = ANY(ids) AND (account_id, id) IN (the pairs)`, so one
// account's job can never touch another's rows. Not as `account_id = ANY(accounts) AND id = ANY(ids)`: on a young
// table (no statistics yet) that let the planner walk an index that leads with account_id (messages_account_page_idx,
// throttled_sends_account_order_idx) through the account's whole history, filtering by id
// (test/engine/young-table-plans.test.ts). The pairs, as a hashed set, prove no index's leading column, so the key is the only way in.

export interface AccountKey {
  id: string;
  accountId: string;
}

/** The condition for rows of `alias` picked by key (`idColumn`, default id) with their accounts. */
export function byAccountKeysSql(alias: string, keys: AccountKey[], idColumn = "id"): Sql {
  const column = sql.raw(`${alias ? `${alias}.` : ""}${idColumn}`);
  const account = sql.raw(`${alias ? `${alias}.` : ""}account_id`);
  const ids = keys.map((k) => k.id);
  return sql`${column} = ANY(${ids}::uuid[]) AND (${account}, ${column}) IN (SELECT * FROM unnest(${keys.map((k) => k.accountId)}::uuid[], ${ids}::uuid[]))`;
}
