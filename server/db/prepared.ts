import type { Knex } from "knex";
import type pg from "pg";

export interface Statement {
  /** Name of the prepared statement, unique in the process. */
  name: string;
  /** SQL with named bindings (`:keyId`, `:at::timestamptz`); every occurrence is bound to the same value. */
  text: string;
}

/**
 * Runs a statement as a named prepared statement on a connection of knex's pool (the transaction's connection
 * when `db` is a transaction), through the connection methods knex's Client declares (`Knex.Client`,
 * acquireConnection and releaseConnection). The hot paths (authentication, POST /scheduler/schedule, the claim)
 * use it: PostgreSQL parses and plans each statement once per connection instead of per request, and knex's
 * query pipeline is skipped — through `db.raw(...).options({ name })` the same statements cost bench:api an
 * eighth of its throughput (bench/NOTES.md, "Figures behind the code"). Named bindings are compiled to
 * PostgreSQL's `$n` once per statement.
 */
export async function queryPrepared<R>(db: Knex, statement: Statement, values: Record<string, unknown>): Promise<R[]> {
  const query = preparedQuery(statement, values);
  const client: Knex.Client = db.client;
  // Reported as knex reports its own statements, so whatever watches the statements sent sees these too.
  client.emit("query", { sql: query.text, bindings: query.values, prepared: statement.name });
  const connection = (await client.acquireConnection()) as pg.PoolClient;
  try {
    const result = await connection.query<R & pg.QueryResultRow>(query);
    return result.rows;
  } finally {
    await client.releaseConnection(connection);
  }
}

/** The statement as pg's named query with its values in `$n` order; every name must have a value. */
export function preparedQuery(statement: Statement, values: Record<string, unknown>): { name: string; text: string; values: unknown[] } {
  const { text, names } = compiled(statement);
  const bindings = names.map((name) => {
    if (!(name in values)) throw new Error(`${statement.name}: no value for :${name}`);
    return values[name];
  });
  return { name: statement.name, text, values: bindings };
}

const cache = new WeakMap<Statement, { text: string; names: string[] }>();

/** `:name` → `$n`, one number per name in order of first appearance (a `::type` cast is left alone). */
function compiled(statement: Statement): { text: string; names: string[] } {
  let found = cache.get(statement);
  if (!found) {
    const names: string[] = [];
    const text = statement.text.replace(/(?<!:):([A-Za-z_]\w*)/g, (_match, name: string) => {
      const at = names.indexOf(name);
      return `$${at >= 0 ? at + 1 : names.push(name)}`;
    });
    found = { text, names };
    cache.set(statement, found);
  }
  return found;
}
