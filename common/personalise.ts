// Placeholders in a campaign message, filled per recipient: `{{firstName}}`, `{{lastName}}` and
// `{{custom.key}}` (a contact's custom field). A value the recipient lacks takes the campaign's fallback for
// that placeholder (`fallbacks: { "lastName": "customer", "custom.plan": "standard" }`); without one,
// `{{firstName}}` is left empty (as it always was) and the others leave the recipient out: a message that
// would read "Dear ," is never sent. Shared by the server (creation and fan-out) and the dashboard's preview.
export const MAX_BODY = 1600;

/** A placeholder's name: `firstName`, `lastName` or `custom.<key>`. */
export const PLACEHOLDER_NAME = /^(firstName|lastName|custom\.[A-Za-z][A-Za-z0-9_]{0,39})$/;
const PLACEHOLDER = /\{\{\s*(firstName|lastName|custom\.[A-Za-z][A-Za-z0-9_]{0,39})\s*\}\}/g;

/** What a recipient brings to the placeholders. */
export interface Recipient {
  firstName: string | null;
  lastName?: string | null;
  customFields?: Record<string, string> | null;
}

export type Fallbacks = Record<string, string>;

/** An own property of `record`, never one of its prototype (`custom.valueOf`, `custom.__proto__`). */
const own = (record: Record<string, string> | null | undefined, key: string): string | undefined =>
  record && Object.hasOwn(record, key) && typeof record[key] === "string" ? record[key] : undefined;

const valueOf = (who: Recipient, name: string): string | null | undefined =>
  name === "firstName" ? who.firstName : name === "lastName" ? who.lastName : own(who.customFields, name.slice("custom.".length));

/**
 * The message for this recipient, or undefined when a placeholder has neither a value nor a fallback, or when
 * nothing would be left of it (a message is never empty).
 */
export function fill(template: string, who: Recipient, fallbacks: Fallbacks = {}): string | undefined {
  let missing = false;
  const text = template.replace(PLACEHOLDER, (_match, name: string) => {
    const value = valueOf(who, name);
    if (value) return value;
    const fallback = own(fallbacks, name);
    if (fallback !== undefined) return fallback;
    if (name !== "firstName") missing = true;
    return "";
  });
  return missing || text.trim().length === 0 ? undefined : text;
}

/** `{{firstName}}` alone, empty where unknown: the message as a list campaign's recipient gets it. */
export const personalise = (template: string, firstName: string | null): string => fill(template, { firstName }) ?? "";

/** Why a filled message cannot be sent (too long, or nothing left), or undefined. */
export function filledProblem(text: string): string | undefined {
  if (text.length > MAX_BODY) return `would exceed ${MAX_BODY} characters`;
  if (text.length === 0) return "would be empty";
  return undefined;
}
