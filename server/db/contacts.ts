import type { Knex } from "knex";
import { run, sql } from "./sql.js";
import type { CursorKey } from "../domain/cursor.js";
import { cursorAtColumn, newestFirstPage } from "./newestFirstPage.js";
import { isOptedOutSql } from "./optOuts.js";

export interface ContactRow {
  id: string;
  phone: string;
  firstName: string | null;
  lastName: string | null;
  tags: string[];
  customFields: Record<string, string>;
  groupId: string | null;
  /** IANA time zone for quiet hours, or null. */
  timeZone: string | null;
  /** Whether the phone is on the account's opt-out list. */
  optedOut: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface ContactFields {
  phone: string;
  firstName: string | null;
  lastName: string | null;
  tags: string[];
  customFields: Record<string, string>;
  groupId: string | null;
  timeZone: string | null;
}

const OPTED_OUT_SQL = sql`${isOptedOutSql("contacts.account_id", "contacts.phone")} AS "optedOut"`;
const columns = (db: Knex) => [
  "id",
  "phone",
  "first_name as firstName",
  "last_name as lastName",
  "tags",
  "custom_fields as customFields",
  "group_id as groupId",
  "time_zone as timeZone",
  OPTED_OUT_SQL.forBuilder(db),
  "created_at as createdAt",
  "updated_at as updatedAt",
];

/** Inserts a contact; throws unique violation `contacts_account_phone_key` on a duplicate phone. */
export async function insertContact(db: Knex, accountId: string, contact: ContactFields): Promise<ContactRow> {
  const [row] = await db("contacts")
    .insert({
      account_id: accountId,
      phone: contact.phone,
      first_name: contact.firstName,
      last_name: contact.lastName,
      tags: contact.tags,
      custom_fields: JSON.stringify(contact.customFields),
      group_id: contact.groupId,
      time_zone: contact.timeZone,
    })
    .returning(columns(db));
  return row as ContactRow;
}

/**
 * Inserts many contacts in one statement; a phone the account already has (also one a concurrent request
 * stores first) is skipped, not an error. Returns the rows stored, in no particular order.
 */
export async function insertContactsSkippingExisting(db: Knex, accountId: string, contacts: ContactFields[]): Promise<ContactRow[]> {
  if (contacts.length === 0) return [];
  // unnest keeps the statement at five parameters however many rows there are.
  const { rows } = await run<ContactRow>(
    db,
    sql`INSERT INTO contacts (account_id, phone, first_name, last_name, tags, custom_fields, group_id, time_zone)
        SELECT ${accountId}, r.phone, r.first_name, r.last_name,
               ARRAY(SELECT jsonb_array_elements_text(r.tags)), r.custom_fields, r.group_id, r.time_zone
          FROM unnest(${contacts.map((c) => c.phone)}::text[], ${contacts.map((c) => c.firstName)}::text[],
                      ${contacts.map((c) => c.lastName)}::text[], ${contacts.map((c) => JSON.stringify(c.tags))}::jsonb[],
                      ${contacts.map((c) => JSON.stringify(c.customFields))}::jsonb[],
                      ${contacts.map((c) => c.groupId)}::uuid[], ${contacts.map((c) => c.timeZone)}::text[])
            AS r(phone, first_name, last_name, tags, custom_fields, group_id, time_zone)
        ON CONFLICT (account_id, phone) DO NOTHING
        RETURNING id, phone, first_name AS "firstName", last_name AS "lastName", tags, custom_fields AS "customFields",
                  group_id AS "groupId", time_zone AS "timeZone", ${OPTED_OUT_SQL},
                  created_at AS "createdAt", updated_at AS "updatedAt"`,
  );
  return rows;
}

export async function getContact(db: Knex, accountId: string, contactId: string): Promise<ContactRow | undefined> {
  return db("contacts").where({ account_id: accountId, id: contactId }).first(columns(db));
}

export async function listContacts(
  db: Knex,
  accountId: string,
  opts: { groupId?: string; phones?: string[]; q?: string; tag?: string; after?: CursorKey; limit: number },
): Promise<(ContactRow & CursorKey)[]> {
  const query = db("contacts")
    .where({ account_id: accountId })
    .select([...columns(db), cursorAtColumn(db, "created_at")]);
  if (opts.groupId) query.where({ group_id: opts.groupId });
  if (opts.phones) query.whereIn("phone", opts.phones);
  // contacts_tags_idx finds the contacts with the tag.
  if (opts.tag) query.where(sql`tags @> ARRAY[${opts.tag}]::text[]`.forBuilder(db));
  if (opts.q) query.where(nameOrNumberMatches(opts.q).forBuilder(db));
  return newestFirstPage(query, opts.after, opts.limit);
}

/** `%`, `_` and `\` taken literally in a LIKE pattern (ESCAPE '\\'). */
const literal = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * A contact whose first name, last name or both ("Ada Lovelace") contain `q` in any case, or whose number
 * contains its digits (spaces, dashes and brackets ignored, so "415 555" finds +14155550123).
 */
function nameOrNumberMatches(q: string) {
  const text = `%${literal(q.trim())}%`;
  const digits = q.replace(/[\s\-().+]/g, "");
  const byName = sql`(first_name ILIKE ${text} ESCAPE '\\' OR last_name ILIKE ${text} ESCAPE '\\'
                      OR concat_ws(' ', first_name, last_name) ILIKE ${text} ESCAPE '\\')`;
  return /^[0-9]+$/.test(digits) ? sql`(${byName} OR phone LIKE ${`%${digits}%`})` : byName;
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
  if (changes.lastName !== undefined) patch.last_name = changes.lastName;
  if (changes.tags !== undefined) patch.tags = changes.tags;
  if (changes.customFields !== undefined) patch.custom_fields = JSON.stringify(changes.customFields);
  if (changes.groupId !== undefined) patch.group_id = changes.groupId;
  if (changes.timeZone !== undefined) patch.time_zone = changes.timeZone;
  const [row] = await db("contacts").where({ account_id: accountId, id: contactId }).update(patch).returning(columns(db));
  return row as ContactRow | undefined;
}

export async function deleteContact(db: Knex, accountId: string, contactId: string): Promise<boolean> {
  return (await db("contacts").where({ account_id: accountId, id: contactId }).del()) > 0;
}
