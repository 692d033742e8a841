// `{{firstName}}` in a campaign message is replaced per contact (empty where unknown).
const FIRST_NAME = /\{\{\s*firstName\s*\}\}/g;
export const MAX_BODY = 1600;

export function personalise(template: string, firstName: string | null): string {
  return template.replace(FIRST_NAME, () => firstName ?? "");
}

/**
 * Why the personalised text would leave 1 to 1600 characters for some recipient (the longest first name
 * makes it longest, an empty one shortest), or undefined when it fits everyone.
 */
export function personalisationProblem(template: string, longestName: number, someNameEmpty: boolean): string | undefined {
  const placeholders = template.match(FIRST_NAME)?.length ?? 0;
  if (placeholders === 0) return undefined;
  const base = template.replace(FIRST_NAME, "").length;
  if (base + placeholders * longestName > MAX_BODY)
    return `would exceed ${MAX_BODY} characters for the recipient with the longest first name`;
  if (base === 0 && someNameEmpty) return "would be empty for a recipient without a first name";
  return undefined;
}
