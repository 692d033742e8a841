import type { Knex } from "knex";

export interface Statement {
  /** Name of the prepared statement, unique in the process. */
  name: string;
  /** SQL with named bindings (`:keyId`, `:at::timestamptz`); every occurrence is bound to the same value. */
  text: string;
}

/**
 * Runs a statement as a named prepared statement (on the transaction's connection when `db` is one). The hot
 * paths (authentication, POST /scheduler/schedule, the claim) use it: PostgreSQL parses and plans each
 * statement once per connection instead of per request, and knex's query builder is skipped. The name reaches
 * pg through knex's `options()`, which the PostgreSQL client merges into pg's query config.
 */
export async function queryPrepared<R>(db: Knex, statement: Statement, values: Record<string, unknown>): Promise<R[]> {
  const result = await db.raw<{ rows: R[] }>(statement.text, values as Record<string, Knex.Value>).options({ name: statement.name });
  return result.rows;
}
