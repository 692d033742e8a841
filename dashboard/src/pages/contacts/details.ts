// A contact's tags and custom fields as people type them: tags comma-separated ("vip, newsletter"), custom
// fields one `key=value` a line. The API checks the limits and names the field it refuses.

export const parseTags = (text: string): string[] =>
  text
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t !== "");

export const formatTags = (tags: string[]): string => tags.join(", ");

/** `key=value` lines; a line without `=` is a key with an empty value, blank lines are skipped. */
export function parseCustomFields(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const at = line.indexOf("=");
    const key = (at < 0 ? line : line.slice(0, at)).trim();
    fields[key] = at < 0 ? "" : line.slice(at + 1).trim();
  }
  return fields;
}

export const formatCustomFields = (fields: Record<string, string>): string =>
  Object.entries(fields)
    .map(([k, v]) => `${k}=${v}`)
    .join("\n");

/** "Ada Lovelace", "Ada", "Lovelace", or undefined without either name. */
export const fullName = (c: { firstName: string | null; lastName: string | null }): string | undefined =>
  [c.firstName, c.lastName].filter(Boolean).join(" ") || undefined;
