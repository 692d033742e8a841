// A bulk contact import: every row checked, the valid ones stored in one statement, each failure reported
// with its 1-based row (a row the insert skipped had a phone the account already has).
import type { Knex } from "knex";
import { insertContactsSkippingExisting, type ContactRow } from "../db/contacts.js";
import { resolveGroupRefs } from "../db/groups.js";
import { checkImportRows, contactExists, groupReferences, type ImportRow, type ImportRowError } from "../domain/contactImport.js";

export async function importContacts(
  tx: Knex.Transaction,
  accountId: string,
  rows: ImportRow[],
): Promise<{ stored: ContactRow[]; failed: number; errors: ImportRowError[] }> {
  const groups = await resolveGroupRefs(tx, accountId, groupReferences(rows));
  const { candidates, errors } = checkImportRows(rows, groups);
  const byPhone = new Map((await insertContactsSkippingExisting(tx, accountId, candidates)).map((c) => [c.phone, c]));
  errors.push(...candidates.filter((c) => !byPhone.has(c.phone)).map(contactExists));
  errors.sort((a, b) => a.row - b.row);
  const stored = candidates.flatMap((c) => (byPhone.has(c.phone) ? [byPhone.get(c.phone)!] : []));
  return { stored, failed: new Set(errors.map((e) => e.row)).size, errors };
}
