// Prepared statements: the hot paths' statements (authentication, POST /scheduler/schedule, the claim, the job
// insert, SMPP segments), which PostgreSQL parses and plans once per connection instead of per call. One is
// written with the `sql` tag like every other statement, and carries its name:
//
//   const findKey = prepared("auth_find_key", (v: { keyId: string }) => sql`SELECT … WHERE key_id = ${v.keyId}`);
//   const [key] = await runPrepared<KeyRow>(db, findKey, { keyId });
//
// The statement's text must be the same on every call (values vary, fragments do not): pg refuses a name
// reused for another text on a connection. Run through the connection methods knex's Client declares
// (acquireConnection, releaseConnection) with pg's named query: knex's query pipeline is skipped — through
// `db.raw(...).options({ name })` the same statements cost bench:api an eighth of its throughput
// (bench/NOTES.md, "Figures behind the code").
import type { Knex } from "knex";
import type pg from "pg";
import type { Sql } from "./sql.js";

export interface Prepared<V> {
  /** Name of the prepared statement, unique in the process. */
  readonly name: string;
  /** The statement for one call's values. */
  readonly make: (values: V) => Sql;
}

/** A statement prepared under `name`, made by the `sql` tag from each call's values. */
export const prepared = <V>(name: string, make: (values: V) => Sql): Prepared<V> => ({ name, make });

/** Runs a prepared statement on a connection of knex's pool (the transaction's when `db` is one); its rows. */
export async function runPrepared<R, V>(db: Knex, statement: Prepared<V>, values: V): Promise<R[]> {
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

/** The statement as pg's named query: the tag's text with `$n` placeholders, and the values in order. */
export function preparedQuery<V>(statement: Prepared<V>, values: V): { name: string; text: string; values: unknown[] } {
  const made = statement.make(values);
  const text = made.parts.reduce((all, part, i) => (i === 0 ? part : `${all}$${i}${part}`), "");
  return { name: statement.name, text, values: [...made.values] };
}
