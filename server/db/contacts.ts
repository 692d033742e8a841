import type { Knex } from "knex";
import type { CursorKey } from "../domain/cursor.js";

export interface ContactRow {
  id: string;
  phone: string;
  firstName: string | null;
  groupId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ContactFields {
  phone: string;
  firstName: string | null;
  groupId: string | null;
}

const columns = ["id", "phone", "first_name as firstName", "group_id as groupId", "created_at as createdAt", "updated_at as updatedAt"];

/** Inserts a contact; throws unique violation `contacts_account_phone_key` on a duplicate phone. */
export async function insertContact(db: Knex, accountId: string, contact: ContactFields): Promise<ContactRow> {
  const [row] = await db("contacts")
    .insert({ account_id: accountId, phone: contact.phone, first_name: contact.firstName, group_id: contact.groupId })
    .returning(columns);
  return row as ContactRow;
}

export async function getContact(db: Knex, accountId: string, contactId: string): Promise<ContactRow | undefined> {
  return db("contacts").where({ account_id: accountId, id: contactId }).first(columns);
}

export async function listContacts(
  db: Knex,
  accountId: string,
  opts: { groupId?: string; after?: CursorKey; limit: number },
): Promise<ContactRow[]> {
  const query = db("contacts").where({ account_id: accountId }).select(columns);
  if (opts.groupId) query.where({ group_id: opts.groupId });
  if (opts.after) query.whereRaw("(created_at, id) < (?, ?)", [opts.after.createdAt, opts.after.id]);
  return query.orderBy([{ column: "created_at", order: "desc" }, { column: "id", order: "desc" }]).limit(opts.limit);
}

/** Applies the given changes; undefined when there is no such contact in the account. */
export async function updateContact(
  db: Knex,
  accountId: string,
  contactId: string,
  changes: Partial<ContactFields>,
): Promise<ContactRow | undefined> {
  const patch: Record<string, unknown> = { updated_at: db.fn.now() };
  if (changes.phone !== undefined) patch.phone = changes.phone;
  if (changes.firstName !== undefined) patch.first_name = changes.firstName;
  if (changes.groupId !== undefined) patch.group_id = changes.groupId;
  const [row] = await db("contacts").where({ account_id: accountId, id: contactId }).update(patch).returning(columns);
  return row as ContactRow | undefined;
}

export async function deleteContact(db: Knex, accountId: string, contactId: string): Promise<boolean> {
  return (await db("contacts").where({ account_id: accountId, id: contactId }).del()) > 0;
}
