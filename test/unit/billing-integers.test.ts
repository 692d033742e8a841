// Money is an integer of micro-units everywhere (docs/BILLING.md, "Money is an integer"): no floating-point
// type or rounding in the billing module, its SQL and its migration, and every amount in the published
// document an integer.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const FLOATING = /\b(float[48]?|double precision|numeric|decimal|real|money)\b|parseFloat|toFixed|Math\.(round|floor|ceil|trunc)/i;

describe("money as integers", () => {
  it("no floating-point type, cast or rounding in the billing module, its routes and its migration", () => {
    const files = [
      ...readdirSync(join(root, "server/billing")).map((f) => join("server/billing", f)),
      "server/http/routes/billing.ts",
      "server/db/migrations/049_prices_and_balances.ts",
    ];
    const found = files.flatMap((f) =>
      readFileSync(join(root, f), "utf8")
        .split("\n")
        .map((line, i) => ({ where: `${f}:${i + 1}`, line }))
        .filter(({ line }) => !line.trim().startsWith("//") && FLOATING.test(line)),
    );
    expect(found).toEqual([]);
  });

  it("every amount in the document is an integer", () => {
    const doc = JSON.parse(readFileSync(join(root, "generated/openapi.json"), "utf8")) as {
      components: {
        schemas: Record<string, { type?: string; properties?: Record<string, { type?: string; $ref?: string; anyOf?: unknown[] }> }>;
      };
    };
    const schemas = doc.components.schemas;
    for (const name of ["Micros", "PriceMicros"]) expect(schemas[name]).toMatchObject({ type: "integer", format: "int64" });
    const amounts = ["MessagePrice", "LedgerEntry", "Balance", "PriceEntry"].flatMap((m) =>
      Object.entries(schemas[m]!.properties!).filter(([k]) =>
        ["amount", "perSegment", "pricePerSegment", "balance", "balanceAfter", "creditLimit", "available", "lowBalanceThreshold"].includes(
          k,
        ),
      ),
    );
    expect(amounts.length).toBeGreaterThan(8);
    for (const [field, schema] of amounts) expect(JSON.stringify(schema), field).toMatch(/Micros|"integer"/);
  });
});
