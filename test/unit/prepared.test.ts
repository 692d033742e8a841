// A prepared statement written with the `sql` tag, against a real PostgreSQL: each value bound where it stands
// (casts and a literal question mark left alone), fragments spliced in with their bindings, the statement
// prepared under its name, and a name reused for another text refused by pg rather than run as the wrong one.
import { describe, expect, it } from "vitest";
import { prepared, runPrepared } from "../../server/db/prepared.js";
import { sql } from "../../server/db/sql.js";
import { useTestDatabase } from "../helpers/database.js";

const database = useTestDatabase();

describe("prepared statements", () => {
  it("binds every value where it stands, splices fragments, keeps ::casts and a literal ?, and prepares it by its name", async () => {
    const plus = (a: unknown, b: unknown) => sql`${a}::int + ${b}::int`;
    const statement = prepared(
      "test_tagged_bindings",
      (v: { a: number; b: number }) =>
        sql`SELECT ${plus(v.a, v.b)} AS sum, ${v.a}::text || '-' || ${v.b}::text AS joined, '{"k":1}'::jsonb ? 'k' AS has`,
    );
    const { db } = database();
    await db.transaction(async (tx) => {
      const [row] = await runPrepared<{ sum: number; joined: string; has: boolean }, { a: number; b: number }>(tx, statement, {
        a: 2,
        b: 40,
      });
      expect(row).toEqual({ sum: 42, joined: "2-40", has: true });
      // The same statement again, other values: the prepared one is reused.
      const [again] = await runPrepared<{ sum: number }, { a: number; b: number }>(tx, statement, { a: 1, b: 1 });
      expect(again!.sum).toBe(2);
      const { rows } = await tx.raw<{ rows: { name: string; statement: string }[] }>(
        "SELECT name, statement FROM pg_prepared_statements WHERE name = ?",
        [statement.name],
      );
      expect(rows).toEqual([{ name: statement.name, statement: expect.stringContaining("$1::int + $2::int AS sum") as string }]);
    });
  });

  it("refuses a name made into another text on the same connection, sending nothing under it", async () => {
    const { db } = database();
    const shifting = prepared("test_shifting_text", (v: { wide: boolean }) => (v.wide ? sql`SELECT 1 AS n, 2 AS m` : sql`SELECT 1 AS n`));
    await db.transaction(async (tx) => {
      await runPrepared(tx, shifting, { wide: false });
      await expect(runPrepared(tx, shifting, { wide: true })).rejects.toThrow(/Prepared statements must be unique/);
    });
  });
});
