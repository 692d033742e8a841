// Row checks of a bulk contact import (POST /contacts/import). A bad row is reported, not thrown: the valid
// rows are stored even when others fail, so one typo does not reject a whole spreadsheet.
import type { components } from "../../generated/api.js";
import { phoneProblem, toE164 } from "./phone.js";
import { isKnownTimeZone } from "./timeZones.js";
import { customFieldsProblem, LAST_NAME_MAX, tagsProblem, tidyTags, type ContactFields } from "./contactDetails.js";

type Schemas = components["schemas"];
export type ImportRow = Schemas["ImportContactRow"];
export type ImportRowError = Schemas["ImportRowError"];

/** The same limit as a single contact's `firstName` (the schema is looser so it is a row error, not a 400). */
export const FIRST_NAME_MAX = 100;

/** A row that passed every check, ready to insert (its group, if it names one, in `groupIds`). `index` is 0-based. */
export interface ImportCandidate extends ContactFields {
  index: number;
}

/** A row's group reference, or undefined for none (`null`, absent or empty). */
const groupRef = (row: ImportRow) => (row.group ? row.group : undefined);

/** The distinct group references of the rows, to resolve to ids. */
export const groupReferences = (rows: ImportRow[]): string[] => [
  ...new Set(rows.map(groupRef).filter((g): g is string => g !== undefined)),
];

/**
 * Checks every row: every failing field gives one error. A phone that normalises to one of an earlier row
 * (failing or not) is `duplicate_in_import`, so the answer depends on the file alone.
 */
export function checkImportRows(
  rows: ImportRow[],
  groups: Map<string, string>,
  // Each row's phone in E.164 (undefined: invalid), when the caller has normalised them already.
  phones: (string | undefined)[] = rows.map((r) => toE164(r.phone)),
): { candidates: ImportCandidate[]; errors: ImportRowError[] } {
  const candidates: ImportCandidate[] = [];
  const errors: ImportRowError[] = [];
  const seen = new Map<string, number>();
  rows.forEach((r, index) => {
    const row = index + 1;
    const before = errors.length;
    const phone = phones[index];
    if (!phone) {
      errors.push({
        row,
        field: "phone",
        code: "invalid_phone",
        detail: `${JSON.stringify(r.phone)} ${phoneProblem(String(r.phone))}.`,
      });
    } else if (seen.has(phone)) {
      errors.push({
        row,
        field: "phone",
        code: "duplicate_in_import",
        detail: `${phone} is already in row ${seen.get(phone)} of this import.`,
      });
    } else {
      seen.set(phone, row);
    }
    const firstName = r.firstName ?? null;
    // Characters as the schema counts them (code points), not UTF-16 units.
    if (firstName !== null && [...firstName].length > FIRST_NAME_MAX) {
      errors.push({
        row,
        field: "firstName",
        code: "first_name_too_long",
        detail: `firstName has more than ${FIRST_NAME_MAX} characters.`,
      });
    }
    const lastName = r.lastName ?? null;
    if (lastName !== null && [...lastName].length > LAST_NAME_MAX) {
      errors.push({ row, field: "lastName", code: "last_name_too_long", detail: `lastName has more than ${LAST_NAME_MAX} characters.` });
    }
    const tags = tidyTags(r.tags ?? []);
    const tagError = tagsProblem(tags);
    if (tagError) errors.push({ row, field: "tags", code: "invalid_tags", detail: `tags: ${tagError}.` });
    const customFields = r.customFields ?? {};
    const fieldsError = customFieldsProblem(customFields);
    if (fieldsError) errors.push({ row, field: "customFields", code: "invalid_custom_fields", detail: `customFields: ${fieldsError}.` });
    const ref = groupRef(r);
    const groupId = ref === undefined ? null : groups.get(ref);
    if (groupId === undefined) {
      errors.push({ row, field: "group", code: "group_not_found", detail: "No group of this account has this name or groupId." });
    }
    const timeZone = r.timeZone ? r.timeZone : null;
    if (timeZone !== null && !isKnownTimeZone(timeZone)) {
      errors.push({
        row,
        field: "timeZone",
        code: "invalid_time_zone",
        detail: `${JSON.stringify(timeZone)} is not a known IANA time zone name.`,
      });
    }
    if (errors.length === before)
      candidates.push({ index, phone: phone!, firstName, lastName, tags, customFields, groupIds: groupId ? [groupId] : [], timeZone });
  });
  return { candidates, errors };
}

/** `contact_exists` for a candidate the insert skipped because the account already has its phone. */
export const contactExists = (c: ImportCandidate): ImportRowError => ({
  row: c.index + 1,
  field: "phone",
  code: "contact_exists",
  detail: `A contact with phone ${c.phone} already exists.`,
});
