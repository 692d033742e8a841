import { deleteContact, getContact, listContacts } from "../../db/contacts.js";
import { fetchPage } from "../../domain/cursor.js";
import { notFound } from "../../domain/errors.js";
import { changeContact, createContact, importContacts } from "../../services/contacts.js";
import { withIdempotency } from "../idempotency.js";
import { toContact } from "../serialize.js";
import type { Handlers } from "../types.js";

export const contactHandlers: Pick<
  Handlers,
  "Contacts_create" | "Contacts_import" | "Contacts_list" | "Contacts_get" | "Contacts_update" | "Contacts_delete"
> = {
  async Contacts_create({ db, account, body }) {
    return { status: 201, body: toContact(await createContact(db, account.id, body)) };
  },

  async Contacts_import({ db, account, body, headers }) {
    return withIdempotency(db, account.id, headers["Idempotency-Key"], body, async (tx) => {
      const { stored, failed, errors } = await importContacts(tx, account.id, body.contacts);
      return { status: 200 as const, body: { imported: stored.length, failed, contacts: stored.map(toContact), errors } };
    });
  },

  async Contacts_list({ db, account, query }) {
    const { items, nextCursor } = await fetchPage(query, (w) =>
      listContacts(db, account.id, { groupId: query.groupId, phones: query.phones, q: query.q, tag: query.tag, ...w }),
    );
    return { status: 200, body: { data: items.map(toContact), nextCursor } };
  },

  async Contacts_get({ db, account, path }) {
    const contact = await getContact(db, account.id, path.contactId);
    if (!contact) throw notFound("Contact");
    return { status: 200, body: toContact(contact) };
  },

  async Contacts_update({ db, account, path, body }) {
    return { status: 200, body: toContact(await changeContact(db, account.id, path.contactId, body)) };
  },

  async Contacts_delete({ db, account, path }) {
    if (!(await deleteContact(db, account.id, path.contactId))) throw notFound("Contact");
    return { status: 204 };
  },
};
