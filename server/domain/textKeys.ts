// How people tell names and addresses apart: `alpha`, `ALPHA`, fullwidth `ａｌｐｈａ` and `alpha` with a zero-width
// space (U+200B) are one; the comparison key is made here, in code (PostgreSQL's lower() folds only what its
// locale knows), and unique indexes hold it (accounts.name_key, users.email).

/** Unicode's format characters (category Cf): zero-width spaces and joiners, bidi controls (U+202E), soft hyphens… */
const FORMAT_CHARACTERS = /\p{Cf}/gu;

/** Whether `text` holds a format character (invisible, or one that reorders what is shown). */
export const hasFormatCharacters = (text: string): boolean => /\p{Cf}/u.test(text);

/**
 * The comparison key: NFKC folds width and compatibility forms, format characters are removed, upper then
 * lower case folds case fully (`ß` → `SS` → `ss`, as Unicode's case folding does), and NFKC again settles what
 * the case mapping decomposed.
 */
export const foldedKey = (text: string): string =>
  text.trim().normalize("NFKC").replace(FORMAT_CHARACTERS, "").toUpperCase().toLowerCase().normalize("NFKC");
