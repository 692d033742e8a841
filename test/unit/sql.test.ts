import { describe, expect, it } from "vitest";
import { sql } from "../../server/db/sql.js";

describe("the sql tag", () => {
  it("binds values and splices fragments with their own bindings, in order", () => {
    const inner = sql`SELECT job_id FROM messages WHERE account_id = ${"a"} AND campaign_id = ${"c"}`;
    const outer = sql`UPDATE jobs SET run_at = ${"t"} WHERE id IN (${inner}) AND account_id = ${"a2"}`;
    expect(outer.toKnex()).toEqual({
      text: "UPDATE jobs SET run_at = ? WHERE id IN (SELECT job_id FROM messages WHERE account_id = ? AND campaign_id = ?) AND account_id = ?",
      bindings: ["t", "a", "c", "a2"],
    });
  });

  it("keeps a literal ? of the text out of the bindings (jsonb's operator)", () => {
    expect(sql`SELECT payload ? 'x' FROM jobs WHERE id = ${1}`.toKnex()).toEqual({
      text: "SELECT payload \\? 'x' FROM jobs WHERE id = ?",
      bindings: [1],
    });
  });

  it("raw text and joins carry no bindings of their own", () => {
    const list = sql.join([sql`${1}`, sql`${2}`, sql.raw("now()")]);
    expect(sql`VALUES (${list})`.toKnex()).toEqual({ text: "VALUES (?, ?, now())", bindings: [1, 2] });
    expect(sql.join([]).toKnex()).toEqual({ text: "", bindings: [] });
  });

  it("writes values in as literals for a statement without parameters (COPY)", () => {
    const at = new Date("2026-11-26T10:00:00.000Z");
    const statement = sql`SELECT ${String.raw`it's a \ test`}, ${["a'", "b"]}::text[], ${at}::timestamptz, ${3}, ${true}, ${null}`;
    expect(sql.inline(statement)).toBe(
      String.raw`SELECT  E'it''s a \\ test', ARRAY['a''', 'b']::text[], '2026-11-26T10:00:00.000Z'::timestamptz, 3, TRUE, NULL`,
    );
    expect(() => sql.inline(sql`SELECT ${{ a: 1 }}`)).toThrow(/cannot write object/);
  });
});
