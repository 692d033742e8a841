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
 * pg through knex's `options()`, which the PostgreSQL client merges into pg's query config. The named bindings
 * are compiled to positional ones once per statement: knex's own named bindings cost twice as much CPU a
 * call (bench/NOTES.md, "Figures behind the code").
 */
export async function queryPrepared<R>(db: Knex, statement: Statement, values: Record<string, unknown>): Promise<R[]> {
  const { text, names } = compiled(statement);
  const bindings = names.map((name) => {
    if (!(name in values)) throw new Error(`${statement.name}: no value for :${name}`);
    return values[name] as Knex.Value;
  });
  const result = await db.raw<{ rows: R[] }>(text, bindings).options({ name: statement.name });
  return result.rows;
}

const cache = new WeakMap<Statement, { text: string; names: string[] }>();

/** `:name` → `?` in order of appearance (a `::type` cast is left alone; a literal `?` is escaped for knex). */
function compiled(statement: Statement): { text: string; names: string[] } {
  let found = cache.get(statement);
  if (!found) {
    const names: string[] = [];
    const text = statement.text.replaceAll("?", "\\?").replace(/(?<!:):([A-Za-z_]\w*)/g, (_match, name: string) => (names.push(name), "?"));
    found = { text, names };
    cache.set(statement, found);
  }
  return found;
}
