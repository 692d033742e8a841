// A contact's tags and custom fields (docs/API.md, "Contacts"): the limits the schema cannot say (a map's size,
// its keys' shape), and tags made tidy (trimmed, repeats dropped). One set of rules for a single contact (a 400
// naming the field) and for an import's rows (the row's error).
export const TAGS_MAX = 20;
export const TAG_LENGTH_MAX = 50;
export const CUSTOM_FIELDS_MAX = 20;
/** A key `{{custom.key}}` can name: a letter, then letters, digits or `_`. */
export const CUSTOM_KEY = /^[A-Za-z][A-Za-z0-9_]{0,39}$/;
export const CUSTOM_VALUE_MAX = 500;
export const LAST_NAME_MAX = 100;

/**
 * What a contact is, as it is stored: one declaration for a contact read (db/contacts.ts ContactRow), written
 * and imported (domain/contactImport.ts ImportCandidate).
 */
export interface ContactFields {
  phone: string;
  firstName: string | null;
  lastName: string | null;
  tags: string[];
  customFields: Record<string, string>;
  /** Its groups in order (contact_groups.position; the API's groupId is the first), each a group of the account. */
  groupIds: string[];
  /** IANA time zone for quiet hours, or null. */
  timeZone: string | null;
}

const length = (text: string) => [...text].length;

/** The tags trimmed, empty ones and repeats dropped, in the order given. */
export const tidyTags = (tags: string[]): string[] => [...new Set(tags.map((t) => t.trim()).filter((t) => t !== ""))];

/** Why the (tidied) tags are refused, or undefined. */
export function tagsProblem(tags: string[]): string | undefined {
  if (tags.length > TAGS_MAX) return `at most ${TAGS_MAX} tags`;
  const long = tags.find((t) => length(t) > TAG_LENGTH_MAX);
  return long === undefined ? undefined : `a tag is at most ${TAG_LENGTH_MAX} characters (${JSON.stringify(long.slice(0, 60))})`;
}

/** Why the custom fields are refused, or undefined. */
export function customFieldsProblem(fields: Record<string, string>): string | undefined {
  const keys = Object.keys(fields);
  if (keys.length > CUSTOM_FIELDS_MAX) return `at most ${CUSTOM_FIELDS_MAX} custom fields`;
  const badKey = keys.find((k) => !CUSTOM_KEY.test(k));
  if (badKey !== undefined) return `${JSON.stringify(badKey.slice(0, 60))} is not a key: a letter, then letters, digits or _ (40 at most)`;
  const longKey = keys.find((k) => length(fields[k]!) > CUSTOM_VALUE_MAX);
  return longKey === undefined ? undefined : `the value of ${longKey} is longer than ${CUSTOM_VALUE_MAX} characters`;
}
