// An account's name as people tell names apart: `Acme`, `ACME `, fullwidth `ＡＣＭＥ`, `acme\u200b` (a zero-width
// space) and `acme` are one name. Stored trimmed as given; compared by its key (trimmed, NFKC, format characters
// removed, case-folded: domain/textKeys.ts), which a unique index holds (migrations 041 and 062), so two
// accounts never differ only by case, width, invisible characters or spaces around them.
import { invalidField } from "../domain/errors.js";
import { foldedKey } from "../domain/textKeys.js";

/** The comparison key of an account name. */
export const accountNameKey = (name: string): string => foldedKey(name);

/** A requested name, trimmed, with its key; 400 when nothing but spaces (or invisible characters) is left. */
export function accountName(input: string, path = "/body/name"): { name: string; key: string } {
  const name = input.trim();
  const key = accountNameKey(name);
  if (name.length === 0 || key.length === 0) throw invalidField(path, "must have a character other than spaces");
  return { name, key };
}
