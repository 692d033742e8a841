import type { Knex } from "knex";
import type { CursorKey } from "../domain/cursor.js";
import { cursorAtColumn, newestFirstPage } from "./newestFirstPage.js";
import { run, sql } from "./sql.js";

export interface NumberRow {
  id: string;
  phoneNumber: string;
  name: string | null;
  selfService: boolean;
  createdAt: Date;
}

const columns = ["id", "phone_number as phoneNumber", "name", "self_service as selfService", "created_at as createdAt"];

/** Registers a number; throws unique violation `numbers_phone_number_key` when any account has it. */
export async function insertNumber(
  db: Knex,
  accountId: string,
  number: { phoneNumber: string; name: string | null; selfService: boolean },
): Promise<NumberRow> {
  const [row] = await db("numbers")
    .insert({ account_id: accountId, phone_number: number.phoneNumber, name: number.name, self_service: number.selfService })
    .returning(columns);
  return row as NumberRow;
}

/** Who holds a number, across the service (the operator's lookup). */
export async function findNumberHolder(db: Knex, phoneNumber: string): Promise<{ accountId: string; numberId: string } | undefined> {
  return db("numbers").where({ phone_number: phoneNumber }).first({ accountId: "account_id", numberId: "id" });
}

export async function getNumber(db: Knex, accountId: string, numberId: string): Promise<NumberRow | undefined> {
  return db("numbers").where({ account_id: accountId, id: numberId }).first(columns);
}

/** The account that owns a number, across the whole service (inbound routing). */
export async function findNumberOwner(db: Knex, phoneNumber: string): Promise<{ accountId: string } | undefined> {
  return db("numbers").where({ phone_number: phoneNumber }).first({ accountId: "account_id" });
}

export async function listNumbers(
  db: Knex,
  accountId: string,
  opts: { after?: CursorKey; limit: number },
): Promise<(NumberRow & CursorKey)[]> {
  const query = db("numbers")
    .where({ account_id: accountId })
    .select([...columns, cursorAtColumn(db, "created_at")]);
  return newestFirstPage(query, opts.after, opts.limit);
}

export async function deleteNumber(db: Knex, accountId: string, numberId: string): Promise<boolean> {
  return (await db("numbers").where({ account_id: accountId, id: numberId }).del()) > 0;
}

/** Of these E.164 senders, those the account holds. */
export async function heldAmong(db: Knex, accountId: string, phones: string[]): Promise<Set<string>> {
  if (phones.length === 0) return new Set();
  const { rows } = await run<{ phone: string }>(
    db,
    sql`SELECT phone_number AS phone FROM numbers WHERE account_id = ${accountId} AND phone_number = ANY(${phones}::text[])`,
  );
  return new Set(rows.map((r) => r.phone));
}
