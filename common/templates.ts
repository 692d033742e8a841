// A template's placeholders (`{{name}}`, or `{{custom.key}}`) and its text with them filled from variables.
// Shared by the server (server/domain/templates.ts) and the dashboard's forms and previews.
const PLACEHOLDER = /\{\{\s*([A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)?)\s*\}\}/g;

/** The names of a text's placeholders, each once, in the order they first appear. */
export const templateVariables = (body: string): string[] => [...new Set([...body.matchAll(PLACEHOLDER)].map((m) => m[1]!))];

/**
 * The text with its placeholders filled; `keep(name)` leaves a placeholder without a value in place (a
 * campaign's per-contact ones). `missing` names the first placeholder with neither.
 */
export function fillVariables(
  body: string,
  variables: Record<string, string>,
  keep: (name: string) => boolean = () => false,
): { text: string; missing?: undefined } | { text?: undefined; missing: string } {
  let missing: string | undefined;
  const text = body.replace(PLACEHOLDER, (placeholder, name: string) => {
    // Own values only: `{{constructor}}` is a missing variable, never Object's function.
    const value = Object.hasOwn(variables, name) ? variables[name] : undefined;
    if (value !== undefined) return value;
    if (keep(name)) return placeholder;
    missing ??= name;
    return "";
  });
  return missing === undefined ? { text } : { missing };
}
