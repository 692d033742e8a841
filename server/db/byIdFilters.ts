// Statements that pick rows by a list of ids and also test their status must find them through the primary
// key. Written plainly, `status = 'scheduled'` proves the predicate of a partial list index such as
// messages_pending_page_idx (account_id, created_at, id) WHERE status IN ('scheduled', 'sending'); the planner
// may then walk that whole index for the ids (its last column) rather than look each one up. It does so when
// the statistics say few rows are in flight — the normal state of a long-lived database, whose messages are
// almost all final — and a burst then costs every statement the whole backlog: on 5 million messages this
// change alone took the claim of 20,000 due messages from 459 to 787 messages/s (bench:history; the rest of the
// gap to the empty database was the benchmark's own poll), and a window's claim had walked the 20,000 pending
// entries (EXPLAIN ANALYZE: 3.7 ms against 0.75 ms by the key).
// `(status || '')` means the same thing but proves no index predicate, so only the key is left.

/** The status column of `alias` as an expression no partial index's predicate can be proved from. */
export const statusByKey = (alias?: string): string => `(${alias ? `${alias}.` : ""}status || '')`;

// Every statement of an account's work names the account (docs/SCALING.md, "Past one server: Citus"): rows picked
// by a list of ids are picked as `account_id = ANY(accounts) AND id = ANY(ids)`, so a sharded deployment routes
// the statement to those accounts' shards only, and one account's job can never touch another's rows.

/** The distinct accounts of rows picked by key, for `account_id = ANY(?)`. */
export const accountsOf = (rows: { accountId: string }[]): string[] => [...new Set(rows.map((r) => r.accountId))];
