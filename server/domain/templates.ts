// A template's text made for one send: its `{{name}}` placeholders filled from the send's variables. In a
// campaign the contact's own placeholders (`firstName`, `lastName`, `custom.<key>`: common/personalise.ts) not
// given as variables stay in the text, to be filled per contact.
import { invalidField } from "./errors.js";

const PLACEHOLDER = /\{\{\s*([A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)?)\s*\}\}/g;
export const VARIABLE_VALUE_MAX = 500;

/** The names of a text's placeholders, each once, in the order they first appear. */
export const templateVariables = (body: string): string[] => [...new Set([...body.matchAll(PLACEHOLDER)].map((m) => m[1]!))];

/**
 * The text with its placeholders filled; `keep(name)` leaves a placeholder without a variable in place (a
 * campaign's per-contact ones). A placeholder with neither is a 400 naming `<path>/variables/<name>`.
 */
export function renderTemplate(
  body: string,
  variables: Record<string, string>,
  opts: { path: string; keep?: (name: string) => boolean },
): string {
  for (const [name, value] of Object.entries(variables))
    if ([...value].length > VARIABLE_VALUE_MAX)
      throw invalidField(`${opts.path}/variables/${name}`, `must be at most ${VARIABLE_VALUE_MAX} characters`);
  return body.replace(PLACEHOLDER, (placeholder, name: string) => {
    const value = variables[name];
    if (value !== undefined) return value;
    if (opts.keep?.(name)) return placeholder;
    throw invalidField(`${opts.path}/variables/${name}`, `is required: the template has {{${name}}}`);
  });
}
