// The price_lists table (migration 049): the operator's lists, read whole when a message is priced.
import type { Knex } from "knex";
import { isForeignKeyViolation } from "../db/errors.js";
import { run, sql } from "../db/sql.js";
import type { PriceEntry, PriceListRules } from "./priceRules.js";

export interface PriceListRow extends PriceListRules {
  updatedAt: Date;
}

const SELECT = sql`SELECT name, currency, entries, default_price AS "default", updated_at AS "updatedAt" FROM price_lists`;

/** Makes or replaces a list; `created` when it is new. */
export async function upsertPriceList(
  db: Knex,
  list: { name: string; currency: string; entries: PriceEntry[]; default: number | null },
): Promise<{ row: PriceListRow; created: boolean }> {
  const { rows } = await run<PriceListRow & { created: boolean }>(
    db,
    sql`INSERT INTO price_lists AS p (name, currency, entries, default_price)
        VALUES (${list.name}, ${list.currency}, ${JSON.stringify(list.entries)}::jsonb, ${list.default}::bigint)
        ON CONFLICT (name) DO UPDATE SET currency = excluded.currency, entries = excluded.entries,
                                         default_price = excluded.default_price, updated_at = now()
        RETURNING name, currency, entries, default_price AS "default", updated_at AS "updatedAt", (xmax = 0) AS created`,
  );
  const { created, ...row } = rows[0]!;
  return { row, created };
}

export async function findPriceList(db: Knex, name: string): Promise<PriceListRow | undefined> {
  return (await run<PriceListRow>(db, sql`${SELECT} WHERE name = ${name}`)).rows[0];
}

export async function listPriceLists(db: Knex): Promise<PriceListRow[]> {
  return (await run<PriceListRow>(db, sql`${SELECT} ORDER BY name`)).rows;
}

/** When a list last changed, or undefined when there is none: what a cached copy is checked against. */
export async function priceListVersion(db: Knex, name: string): Promise<Date | undefined> {
  return (await run<{ updatedAt: Date }>(db, sql`SELECT updated_at AS "updatedAt" FROM price_lists WHERE name = ${name}`)).rows[0]
    ?.updatedAt;
}

/** Whether an account uses the list. */
export async function priceListInUse(db: Knex, name: string): Promise<boolean> {
  return (await run(db, sql`SELECT FROM accounts WHERE price_list = ${name} LIMIT 1`)).rowCount > 0;
}

/** Deletes a list; "in_use" when an account uses it (the foreign key), "missing" when there is none. */
export async function deletePriceList(db: Knex, name: string): Promise<"deleted" | "missing" | "in_use"> {
  try {
    return (await run(db, sql`DELETE FROM price_lists WHERE name = ${name}`)).rowCount > 0 ? "deleted" : "missing";
  } catch (error) {
    if (isForeignKeyViolation(error)) return "in_use";
    throw error;
  }
}
