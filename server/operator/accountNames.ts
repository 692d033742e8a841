// An account's name as people tell names apart: `Acme`, `ACME `, fullwidth `ＡＣＭＥ` and `acme` are one name.
// Stored trimmed as given; compared by its key (trimmed, NFKC, case-folded), which a unique index holds
// (migration 041), so two accounts never differ only by case, width or spaces around them.
import { invalidField } from "../domain/errors.js";

/**
 * The comparison key: NFKC folds width and compatibility forms; upper then lower case folds case fully
 * (`ß` → `SS` → `ss`, as Unicode's case folding does), and NFKC again settles what the case mapping decomposed.
 */
export const accountNameKey = (name: string): string => name.trim().normalize("NFKC").toUpperCase().toLowerCase().normalize("NFKC");

/** A requested name, trimmed, with its key; 400 when nothing but spaces is left. */
export function accountName(input: string, path = "/body/name"): { name: string; key: string } {
  const name = input.trim();
  if (name.length === 0) throw invalidField(path, "must have a character other than spaces");
  return { name, key: accountNameKey(name) };
}
