// One idiom for hand-written SQL: the `sql` tagged template. Every interpolated value becomes a binding, and an
// interpolated Sql fragment is spliced in with its own bindings, so a statement can be composed of fragments
// that other modules own (the job table's, db/jobs) without string splicing or counting positional `?`s.
//
//   const mine = sql`SELECT id FROM groups WHERE account_id = ${accountId}`;
//   await run(db, sql`SELECT count(*) FROM contacts WHERE group_id IN (${mine}) AND phone = ${phone}`);
//
// `sql.raw` is for trusted constant text only (an identifier or an expression made in code, never input): SQL
// text is always an Sql, never a plain string, so a value passed where an expression is expected does not
// compile. A statement the hot paths prepare is written with this tag too, and named (db/prepared.ts); the
// query builder takes a fragment as `query.where(fragment.forBuilder(db))`, where a plain CRUD call reads best
// (docs/DEVELOPMENT.md, "Writing SQL").
import type { Knex } from "knex";
import pg from "pg";

export class Sql {
  /** @internal use the `sql` tag */
  constructor(
    readonly parts: readonly string[],
    readonly values: readonly unknown[],
  ) {}

  /** Text with knex's `?` placeholders (a literal `?` in the text escaped) and the bindings in order. */
  toKnex(): { text: string; bindings: unknown[] } {
    let text = this.parts[0]!.replaceAll("?", "\\?");
    const bindings: unknown[] = [];
    this.values.forEach((value, i) => {
      text += "?";
      bindings.push(value);
      text += this.parts[i + 1]!.replaceAll("?", "\\?");
    });
    return { text, bindings };
  }

  /**
   * This fragment for knex's query builder, where a plain call reads best: `query.where(f.forBuilder(db))`, a
   * select column, an update's value. `db`: the knex instance, or a query's `client`.
   */
  forBuilder(db: Knex | Knex.Client): Knex.Raw {
    const { text, bindings } = this.toKnex();
    return db.raw(text, bindings as Knex.RawBinding[]) as Knex.Raw;
  }
}

export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  const parts = [strings[0]!];
  const flat: unknown[] = [];
  values.forEach((value, i) => {
    if (value instanceof Sql) {
      // Splice the fragment: its first part joins our current text, its last our next.
      parts[parts.length - 1] += value.parts[0]!;
      for (let k = 0; k < value.values.length; k++) {
        flat.push(value.values[k]);
        parts.push(value.parts[k + 1]!);
      }
      parts[parts.length - 1] += strings[i + 1]!;
    } else {
      flat.push(value);
      parts.push(strings[i + 1]!);
    }
  });
  return new Sql(parts, flat);
}

/**
 * The statement as text with its values written in as literals (quoted by pg's escapeLiteral), for a statement
 * that takes no parameters: COPY. Strings, finite numbers, booleans, null, Dates and arrays of those.
 */
sql.inline = (statement: Sql): string =>
  statement.parts.reduce((text, part, i) => (i === 0 ? part : `${text}${literal(statement.values[i - 1])}${part}`), "");

function literal(v: unknown): string {
  if (v === null || v === undefined) return "NULL";
  if (typeof v === "string") return pg.escapeLiteral(v);
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  if (typeof v === "boolean") return v ? "TRUE" : "FALSE";
  if (v instanceof Date) return pg.escapeLiteral(v.toISOString());
  if (Array.isArray(v)) return `ARRAY[${v.map(literal).join(", ")}]`;
  throw new Error(`sql.inline: cannot write ${typeof v} as a literal`);
}

/** Trusted constant SQL text (an expression or identifier made in code, never input). */
sql.raw = (text: string): Sql => new Sql([text], []);

/** Fragments joined by `separator` (default ", "). */
sql.join = (fragments: Sql[], separator = ", "): Sql =>
  fragments.reduce<Sql | undefined>((all, f) => (all ? sql`${all}${sql.raw(separator)}${f}` : f), undefined) ?? sql.raw("");

/** Runs a statement and returns its rows. */
export async function run<R = Record<string, unknown>>(db: Knex, statement: Sql): Promise<{ rows: R[]; rowCount: number }> {
  const { text, bindings } = statement.toKnex();
  const result = await db.raw<{ rows: R[]; rowCount: number | null }>(text, bindings as Knex.RawBinding[]);
  return { rows: result.rows, rowCount: result.rowCount ?? 0 };
}
