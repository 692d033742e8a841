// A contact's tags and custom fields as people type them: tags comma-separated ("vip, newsletter"), custom
// fields one `key=value` a line. The API checks the limits and names the field it refuses.

export const parseTags = (text: string): string[] =>
  text
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t !== "");

export const formatTags = (tags: string[]): string => tags.join(", ");

/**
 * What is wrong with `key=value` lines (`what` names the left side: key, placeholder), the first line without
 * `=` or without a key: "Line 2 has no '=': write key=value"; undefined when every line is one (blank lines are
 * skipped). A form refuses such text rather than store a line as a key with an empty value.
 */
export function keyValueProblem(text: string, what = "key"): string | undefined {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === "") continue;
    const at = line.indexOf("=");
    if (at < 0) return `Line ${i + 1} has no '=': write ${what}=value`;
    if (line.slice(0, at).trim() === "") return `Line ${i + 1} has no ${what} before '=': write ${what}=value`;
  }
  return undefined;
}

/** `key=value` lines (blank lines skipped); check them with keyValueProblem first. */
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
