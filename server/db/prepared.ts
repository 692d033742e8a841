import type { Knex } from "knex";
import type pg from "pg";

export interface Statement {
  /** Name of the prepared statement, unique in the process. */
  name: string;
  /** SQL with $1..$n placeholders. */
  text: string;
}

/**
 * Runs a named prepared statement on a connection from knex's pool (or on the transaction's connection when
 * `db` is a transaction). The hot paths (authentication, POST /scheduler/schedule) use it: PostgreSQL parses
 * and plans each statement once per connection instead of per request, and knex's query building is skipped.
 */
export async function queryPrepared<R>(db: Knex, statement: Statement, values: unknown[]): Promise<R[]> {
  const client = db.client as {
    acquireConnection(): Promise<pg.PoolClient>;
    releaseConnection(c: pg.PoolClient): Promise<unknown>;
    emit(event: "query", q: object): void;
  };
  // Reported as knex reports its own statements (a transaction's client passes it on to the knex instance), so
  // whatever watches the statements sent sees these too.
  client.emit("query", { sql: statement.text, bindings: values, prepared: statement.name });
  const connection = await client.acquireConnection();
  try {
    const result = await connection.query<R & pg.QueryResultRow>({ name: statement.name, text: statement.text, values });
    return result.rows;
  } finally {
    await client.releaseConnection(connection);
  }
}
