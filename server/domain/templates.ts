// A template's text made for one send (common/templates.ts does the filling): each variable at most 500
// characters, and a placeholder without a value is a 400 naming it.
import { fillVariables } from "../../common/templates.js";
import { invalidField } from "./errors.js";

export { templateVariables } from "../../common/templates.js";
export const VARIABLE_VALUE_MAX = 500;

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
  const filled = fillVariables(body, variables, opts.keep);
  if (filled.missing !== undefined)
    throw invalidField(`${opts.path}/variables/${filled.missing}`, `is required: the template has {{${filled.missing}}}`);
  // No door stores an empty message: a text of variables that are all empty is refused here.
  if (filled.text.trim().length === 0) throw invalidField(`${opts.path}/variables`, "leave the message empty: give at least one a value");
  return filled.text;
}
