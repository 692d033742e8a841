import type { Knex } from "knex";
import { run, sql, type Sql } from "./sql.js";
import type { ContactFields } from "../domain/contactDetails.js";
import type { CursorKey } from "../domain/cursor.js";
import { cursorAtColumn, newestFirstPage } from "./newestFirstPage.js";
import { isOptedOutSql } from "./optOuts.js";

export type { ContactFields };

/** A contact as read, with what the database says of it besides its fields. */
export interface ContactRow extends ContactFields {
  id: string;
  /** Whether the phone is on the account's opt-out list. */
  optedOut: boolean;
  createdAt: Date;
  updatedAt: Date;
}

const OPTED_OUT_SQL = sql`${isOptedOutSql("contacts.account_id", "contacts.phone")} AS "optedOut"`;
/** A contact's groups in their order (contact_groups_pkey). */
const GROUP_IDS_SQL = sql`ARRAY(SELECT cg.group_id FROM contact_groups cg
  WHERE cg.contact_id = contacts.id AND cg.account_id = contacts.account_id ORDER BY cg.position) AS "groupIds"`;
const columns = (db: Knex) => [
  "id",
  "phone",
  "first_name as firstName",
  "last_name as lastName",
  "tags",
  "custom_fields as customFields",
  GROUP_IDS_SQL.forBuilder(db),
  "time_zone as timeZone",
  OPTED_OUT_SQL.forBuilder(db),
  "created_at as createdAt",
  "updated_at as updatedAt",
];

/**
 * Inserts a contact with its groups, in one statement; throws unique violation `contacts_account_phone_key` on
 * a duplicate phone, and a foreign key violation when one of its groups was deleted meanwhile.
 */
export async function insertContact(db: Knex, accountId: string, contact: ContactFields): Promise<ContactRow> {
  const { rows } = await run<ContactRow>(
    db,
    sql`WITH contacts AS (
          INSERT INTO contacts (account_id, phone, first_name, last_name, tags, custom_fields, time_zone)
          VALUES (${accountId}, ${contact.phone}, ${contact.firstName}, ${contact.lastName}, ${contact.tags}::text[],
                  ${JSON.stringify(contact.customFields)}::jsonb, ${contact.timeZone})
          RETURNING *
        ), memberships AS (${membershipsSql(accountId, sql`SELECT id AS contact_id, ${contact.groupIds}::uuid[] AS group_ids FROM contacts`)})
        SELECT ${sql.raw(RETURNED)}, ${contact.groupIds}::uuid[] AS "groupIds", ${OPTED_OUT_SQL} FROM contacts`,
  );
  return rows[0]!;
}

/** The columns a write returns, but its groups and opt-out (from a CTE named `contacts`). */
const RETURNED = `id, phone, first_name AS "firstName", last_name AS "lastName", tags, custom_fields AS "customFields",
  time_zone AS "timeZone", created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * Inserts the memberships `pairs` (contact_id, group_ids uuid[]) gives, each group at its place in the array.
 * A group of another account is refused before (the services check every groupId is the account's).
 */
const membershipsSql = (accountId: string, pairs: Sql) =>
  sql`INSERT INTO contact_groups (account_id, contact_id, group_id, position)
      SELECT ${accountId}::uuid, p.contact_id, g.group_id, g.position
        FROM (${pairs}) p, unnest(p.group_ids) WITH ORDINALITY AS g(group_id, position)
      ON CONFLICT (contact_id, group_id) DO UPDATE SET position = EXCLUDED.position`;

/**
 * Inserts many contacts in one statement; a phone the account already has (also one a concurrent request
 * stores first) is skipped, not an error. Returns the rows stored, in no particular order.
 */
export async function insertContactsSkippingExisting(db: Knex, accountId: string, contacts: ContactFields[]): Promise<ContactRow[]> {
  if (contacts.length === 0) return [];
  // unnest keeps the statement at seven parameters however many rows there are.
  const { rows } = await run<ContactRow>(
    db,
    sql`WITH r AS (
          SELECT * FROM unnest(${contacts.map((c) => c.phone)}::text[], ${contacts.map((c) => c.firstName)}::text[],
                               ${contacts.map((c) => c.lastName)}::text[], ${contacts.map((c) => JSON.stringify(c.tags))}::jsonb[],
                               ${contacts.map((c) => JSON.stringify(c.customFields))}::jsonb[],
                               ${contacts.map((c) => JSON.stringify(c.groupIds))}::jsonb[], ${contacts.map((c) => c.timeZone)}::text[])
            AS r(phone, first_name, last_name, tags, custom_fields, group_ids, time_zone)
        ), contacts AS (
          INSERT INTO contacts (account_id, phone, first_name, last_name, tags, custom_fields, time_zone)
          SELECT ${accountId}, r.phone, r.first_name, r.last_name, ARRAY(SELECT jsonb_array_elements_text(r.tags)), r.custom_fields, r.time_zone
            FROM r
          ON CONFLICT (account_id, phone) DO NOTHING
          RETURNING *
        ), groups AS (
          SELECT contacts.id AS contact_id, ARRAY(SELECT jsonb_array_elements_text(r.group_ids))::uuid[] AS group_ids
            FROM contacts JOIN r ON r.phone = contacts.phone
        ), memberships AS (${membershipsSql(accountId, sql`SELECT * FROM groups`)})
        SELECT ${sql.raw(RETURNED)}, g.group_ids AS "groupIds", ${OPTED_OUT_SQL}
          FROM contacts JOIN groups g ON g.contact_id = contacts.id`,
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
  // contact_groups_group_idx finds the group's members.
  if (opts.groupId)
    query.whereExists(
      db("contact_groups as cg")
        .where({ "cg.account_id": accountId, "cg.group_id": opts.groupId })
        .whereRaw("cg.contact_id = contacts.id")
        .select(db.raw("1")),
    );
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

/**
 * Applies the given changes (its groups, when given, replaced whole); undefined when there is no such contact
 * in the account.
 */
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
  if (changes.timeZone !== undefined) patch.time_zone = changes.timeZone;
  return db.transaction(async (tx) => {
    // The contact first (its row locked), then its groups; the returned row reads them after.
    const updated = await tx("contacts").where({ account_id: accountId, id: contactId }).update(patch);
    if (updated === 0) return undefined;
    if (changes.groupIds !== undefined) await replaceGroups(tx, accountId, contactId, changes.groupIds);
    const row: ContactRow = await tx("contacts").where({ account_id: accountId, id: contactId }).first(columns(tx));
    return row;
  });
}

/** Makes `groupIds` the contact's groups, in that order: the others' memberships deleted, these upserted. */
async function replaceGroups(tx: Knex.Transaction, accountId: string, contactId: string, groupIds: string[]): Promise<void> {
  await run(
    tx,
    sql`WITH gone AS (DELETE FROM contact_groups WHERE account_id = ${accountId} AND contact_id = ${contactId}
                        AND group_id <> ALL(${groupIds}::uuid[]))
        ${membershipsSql(accountId, sql`SELECT ${contactId}::uuid AS contact_id, ${groupIds}::uuid[] AS group_ids`)}`,
  );
}

export async function deleteContact(db: Knex, accountId: string, contactId: string): Promise<boolean> {
  return (await db("contacts").where({ account_id: accountId, id: contactId }).del()) > 0;
}
