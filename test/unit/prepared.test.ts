// queryPrepared's compile of named bindings, against a real PostgreSQL: each name bound wherever it stands,
// casts and literal question marks left alone, the statement prepared under its name.
import { describe, expect, it } from "vitest";
import { queryPrepared } from "../../server/db/prepared.js";
import { useTestDatabase } from "../helpers/database.js";

const database = useTestDatabase();

describe("queryPrepared", () => {
  it("binds every occurrence of a name, keeps ::casts and a literal ?, and prepares the statement by its name", async () => {
    const statement = {
      name: "test_named_bindings",
      text: `SELECT :a::int + :b::int AS sum, :a::text || '-' || :b::text AS joined, '{"k":1}'::jsonb ? 'k' AS has`,
    };
    const { db } = database();
    await db.transaction(async (tx) => {
      const [row] = await queryPrepared<{ sum: number; joined: string; has: boolean }>(tx, statement, { a: 2, b: 40 });
      expect(row).toEqual({ sum: 42, joined: "2-40", has: true });
      const { rows } = await tx.raw<{ rows: { name: string }[] }>("SELECT name FROM pg_prepared_statements WHERE name = ?", [
        statement.name,
      ]);
      expect(rows).toEqual([{ name: statement.name }]);
    });
  });

  it("refuses a statement whose name has no value, before sending anything", async () => {
    await expect(queryPrepared(database().db, { name: "test_missing", text: "SELECT :missing::int" }, {})).rejects.toThrow(
      /no value for :missing/,
    );
  });
});
