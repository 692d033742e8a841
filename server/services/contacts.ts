// Contact writes: a number normalised, the group checked, constraint violations turned into the contract's
// problems; and the bulk import: every row checked, the valid ones stored in one statement, each failure
// reported with its 1-based row (a row the insert skipped had a phone the account already has).
import type { Knex } from "knex";
import { getContact, insertContact, insertContactsSkippingExisting, updateContact, type ContactRow } from "../db/contacts.js";
import { isForeignKeyViolation, isUniqueViolation } from "../db/errors.js";
import { groupExists, resolveGroupRefs } from "../db/groups.js";
import { checkImportRows, contactExists, groupReferences, type ImportRow, type ImportRowError } from "../domain/contactImport.js";
import { DomainError, groupNotFound, invalidField, notFound } from "../domain/errors.js";
import { customFieldsProblem, tagsProblem, tidyTags } from "../domain/contactDetails.js";
import { requirePhone, toE164 } from "../domain/phone.js";
import { requireTimeZone } from "../domain/timeZones.js";
import { mapYielding } from "./yieldingMap.js";

export async function importContacts(
  tx: Knex.Transaction,
  accountId: string,
  rows: ImportRow[],
): Promise<{ stored: ContactRow[]; failed: number; errors: ImportRowError[] }> {
  const groups = await resolveGroupRefs(tx, accountId, groupReferences(rows));
  // The CPU part (10,000 phone numbers, ~130 ms) in chunks, so the event loop keeps serving other requests.
  const phones = await mapYielding(rows, (r) => toE164(r.phone));
  const { candidates, errors } = checkImportRows(rows, groups, phones);
  const byPhone = new Map((await insertContactsSkippingExisting(tx, accountId, candidates)).map((c) => [c.phone, c]));
  errors.push(...candidates.filter((c) => !byPhone.has(c.phone)).map(contactExists));
  errors.sort((a, b) => a.row - b.row);
  const stored = candidates.flatMap((c) => (byPhone.has(c.phone) ? [byPhone.get(c.phone)!] : []));
  return { stored, failed: new Set(errors.map((e) => e.row)).size, errors };
}

/** Maps constraint violations of a contact write to the contract's problems. */
function contactWriteError(error: unknown, phone: string | undefined): unknown {
  if (isUniqueViolation(error, "contacts_account_phone_key")) {
    return new DomainError("contact_exists", `A contact with phone ${phone} already exists.`);
  }
  // The group was deleted between the check and the write.
  if (isForeignKeyViolation(error)) return groupNotFound();
  return error;
}

async function requireGroup(db: Knex, accountId: string, groupId: string | null | undefined): Promise<void> {
  if (groupId && !(await groupExists(db, accountId, groupId))) throw groupNotFound();
}

export interface ContactInput {
  phone: string;
  firstName?: string | null;
  lastName?: string | null;
  tags?: string[];
  customFields?: Record<string, string>;
  groupId?: string | null;
  timeZone?: string | null;
}

/** The tags tidied and both checked against a contact's limits (400 naming the field). */
function checkedDetails(input: Partial<ContactInput>): { tags?: string[]; customFields?: Record<string, string> } {
  const tags = input.tags === undefined ? undefined : tidyTags(input.tags);
  const tagError = tags && tagsProblem(tags);
  if (tagError) throw invalidField("/body/tags", tagError);
  const fieldError = input.customFields && customFieldsProblem(input.customFields);
  if (fieldError) throw invalidField("/body/customFields", fieldError);
  return { tags, customFields: input.customFields };
}

const checkedTimeZone = (timeZone: string | null | undefined) =>
  timeZone === undefined || timeZone === null ? timeZone : requireTimeZone(timeZone, "/body/timeZone");

export async function createContact(db: Knex, accountId: string, input: ContactInput): Promise<ContactRow> {
  const phone = requirePhone(input.phone, "/body/phone");
  const timeZone = checkedTimeZone(input.timeZone) ?? null;
  const { tags = [], customFields = {} } = checkedDetails(input);
  await requireGroup(db, accountId, input.groupId);
  try {
    return await insertContact(db, accountId, {
      phone,
      firstName: input.firstName ?? null,
      lastName: input.lastName ?? null,
      tags,
      customFields,
      groupId: input.groupId ?? null,
      timeZone,
    });
  } catch (error) {
    throw contactWriteError(error, phone);
  }
}

export async function changeContact(db: Knex, accountId: string, contactId: string, input: Partial<ContactInput>): Promise<ContactRow> {
  const phone = input.phone === undefined ? undefined : requirePhone(input.phone, "/body/phone");
  // 404 before anything about the body: another account's contact must look like no contact at all.
  if (!(await getContact(db, accountId, contactId))) throw notFound("Contact");
  const timeZone = checkedTimeZone(input.timeZone);
  const { tags, customFields } = checkedDetails(input);
  await requireGroup(db, accountId, input.groupId);
  try {
    const contact = await updateContact(db, accountId, contactId, {
      phone,
      firstName: input.firstName,
      lastName: input.lastName,
      tags,
      customFields,
      groupId: input.groupId,
      timeZone,
    });
    if (!contact) throw notFound("Contact");
    return contact;
  } catch (error) {
    throw contactWriteError(error, phone);
  }
}
