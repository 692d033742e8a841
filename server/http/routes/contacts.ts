import { deleteContact, getContact, insertContact, listContacts, updateContact } from "../../db/contacts.js";
import { isForeignKeyViolation, isUniqueViolation } from "../../db/errors.js";
import { groupExists } from "../../db/groups.js";
import type { Db } from "../../db/knex.js";
import { fetchPage } from "../../domain/cursor.js";
import { ApiError, groupNotFound, notFound } from "../../domain/errors.js";
import { requirePhone } from "../../domain/phone.js";
import { importContacts } from "../../services/contacts.js";
import { withIdempotency } from "../idempotency.js";
import { toContact } from "../serialize.js";
import type { Handlers } from "../types.js";

async function requireGroup(db: Db, accountId: string, groupId: string | null | undefined): Promise<void> {
  if (groupId && !(await groupExists(db, accountId, groupId))) throw groupNotFound();
}

/** Maps constraint violations of a contact write to the contract's problems. */
function contactWriteError(error: unknown, phone: string | undefined): unknown {
  if (isUniqueViolation(error, "contacts_account_phone_key")) {
    return new ApiError("contact_exists", `A contact with phone ${phone} already exists.`);
  }
  // The group was deleted between the check and the write.
  if (isForeignKeyViolation(error)) return groupNotFound();
  return error;
}

export const contactHandlers: Pick<Handlers, "Contacts_create" | "Contacts_import" | "Contacts_list" | "Contacts_get" | "Contacts_update" | "Contacts_delete"> = {
  async Contacts_create({ db, account, body }) {
    const phone = requirePhone(body.phone, "/body/phone");
    await requireGroup(db, account.id, body.groupId);
    try {
      const contact = await insertContact(db, account.id, { phone, firstName: body.firstName ?? null, groupId: body.groupId ?? null });
      return { status: 201, body: toContact(contact) };
    } catch (error) {
      throw contactWriteError(error, phone);
    }
  },

  async Contacts_import({ db, account, body, headers }) {
    return withIdempotency(db, account.id, headers["Idempotency-Key"], body, async (tx) => {
      const { stored, failed, errors } = await importContacts(tx, account.id, body.contacts);
      return { status: 200 as const, body: { imported: stored.length, failed, contacts: stored.map(toContact), errors } };
    });
  },

  async Contacts_list({ db, account, query }) {
    const { items, nextCursor } = await fetchPage(query, (w) => listContacts(db, account.id, { groupId: query.groupId, ...w }));
    return { status: 200, body: { data: items.map(toContact), nextCursor } };
  },

  async Contacts_get({ db, account, path }) {
    const contact = await getContact(db, account.id, path.contactId);
    if (!contact) throw notFound("Contact");
    return { status: 200, body: toContact(contact) };
  },

  async Contacts_update({ db, account, path, body }) {
    const phone = body.phone === undefined ? undefined : requirePhone(body.phone, "/body/phone");
    // 404 before anything about the body: another account's contact must look like no contact at all.
    if (!(await getContact(db, account.id, path.contactId))) throw notFound("Contact");
    await requireGroup(db, account.id, body.groupId);
    try {
      const contact = await updateContact(db, account.id, path.contactId, { phone, firstName: body.firstName, groupId: body.groupId });
      if (!contact) throw notFound("Contact");
      return { status: 200, body: toContact(contact) };
    } catch (error) {
      throw contactWriteError(error, phone);
    }
  },

  async Contacts_delete({ db, account, path }) {
    if (!(await deleteContact(db, account.id, path.contactId))) throw notFound("Contact");
    return { status: 204 };
  },
};
