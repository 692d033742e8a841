// CSV cells a spreadsheet would run as a formula (OWASP "CSV injection"): a cell whose first visible character
// is =, +, -, or @, or that starts with a tab or a carriage return, gets a leading ' so it is read as text.
// "First visible": spreadsheets skip leading spaces, line breaks, no-break spaces, a byte-order mark and
// zero-width or direction marks before they look for a formula, so `" =1+1"` or `"\u200b=1+1"` is one too.
// A phone number in E.164 (+ and digits only) is left as it is: it cannot be a formula, and people export
// numbers to dial them. The exports apply the rule in the SQL that writes the file (reports/exportsTable.ts): the pattern
// is written so that PostgreSQL's regular expressions and JavaScript's read it alike.
const INVISIBLE = "\\s\\u00a0\\u1680\\u180e\\u2000-\\u200f\\u2028-\\u202f\\u205f-\\u206f\\u3000\\ufeff";
export const FORMULA_CELL = `^([${INVISIBLE}]*[=+@-]|[\\t\\r])`;
export const PHONE_NUMBER = /^\+[1-9][0-9]{6,14}$/;
