// CSV cells a spreadsheet would run as a formula (OWASP "CSV injection"): a cell starting with =, +, -, @, a
// tab or a carriage return gets a leading ' so it is read as text. A phone number in E.164 (+ and digits only)
// is left as it is: it cannot be a formula, and people export numbers to dial them. The exports apply the rule
// in the SQL that writes the file (db/exports.ts).
export const FORMULA_START: ReadonlySet<string> = new Set(["=", "+", "-", "@", "\t", "\r"]);
export const PHONE_NUMBER = /^\+[1-9][0-9]{6,14}$/;
