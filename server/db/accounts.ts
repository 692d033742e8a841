import type { Knex } from "knex";

export interface Account {
  id: string;
  name: string;
}

/** Returns the account with this name, creating it if needed. */
export async function ensureAccount(db: Knex, name: string): Promise<Account> {
  const [row] = await db("accounts").insert({ name }).onConflict("name").merge({ name }).returning(["id", "name"]);
  return row as Account;
}

export async function countAccounts(db: Knex): Promise<number> {
  const row = await db("accounts").count<{ count: number }[]>({ count: "*" }).first();
  return Number(row?.count ?? 0);
}
