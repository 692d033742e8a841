// Contact writes: a number normalised, the group checked, constraint violations turned into the contract's
// problems; and the bulk import: every row checked, the valid ones stored in one statement, each failure
// reported with its 1-based row (a row the insert skipped had a phone the account already has).
import type { Knex } from "knex";
import { getContact, insertContact, insertContactsSkippingExisting, updateContact, type ContactRow } from "../db/contacts.js";
import { isForeignKeyViolation, isUniqueViolation } from "../db/errors.js";
import { groupsOfAccount, resolveGroupRefs } from "../db/groups.js";
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

/**
 * The contact's groups as a request gives them: `groupIds` (in order, repeats dropped), or `groupId` alone (one
 * group, or none for null), or undefined when it gives neither; each must be a group of the account (422
 * group_not_found naming it). Both at once is a 400.
 */
async function requestedGroups(db: Knex, accountId: string, input: Partial<ContactInput>): Promise<string[] | undefined> {
  if (input.groupIds !== undefined && input.groupId !== undefined)
    throw invalidField("/body/groupIds", "or groupId: at most one of the two (groupIds: [] leaves it in no group)");
  const wanted =
    input.groupIds !== undefined
      ? [...new Set(input.groupIds)]
      : input.groupId === undefined
        ? undefined
        : input.groupId === null
          ? []
          : [input.groupId];
  if (!wanted || wanted.length === 0) return wanted;
  const found = await groupsOfAccount(db, accountId, wanted);
  const missing = wanted.findIndex((id) => !found.has(id));
  if (missing >= 0) {
    if (input.groupIds === undefined) throw groupNotFound();
    throw new DomainError("group_not_found", "groupIds names a group that does not exist in this account.", {
      errors: [{ path: `/body/groupIds/${input.groupIds.indexOf(wanted[missing]!)}`, message: "no such group" }],
    });
  }
  return wanted;
}

export interface ContactInput {
  phone: string;
  firstName?: string | null;
  lastName?: string | null;
  tags?: string[];
  customFields?: Record<string, string>;
  groupId?: string | null;
  groupIds?: string[];
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
  const groupIds = (await requestedGroups(db, accountId, input)) ?? [];
  try {
    return await insertContact(db, accountId, {
      phone,
      firstName: input.firstName ?? null,
      lastName: input.lastName ?? null,
      tags,
      customFields,
      groupIds,
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
  const groupIds = await requestedGroups(db, accountId, input);
  try {
    const contact = await updateContact(db, accountId, contactId, {
      phone,
      firstName: input.firstName,
      lastName: input.lastName,
      tags,
      customFields,
      groupIds,
      timeZone,
    });
    if (!contact) throw notFound("Contact");
    return contact;
  } catch (error) {
    throw contactWriteError(error, phone);
  }
}
