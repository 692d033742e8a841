// CSV cells a spreadsheet would run as a formula (OWASP "CSV injection"): a cell starting with =, +, -, @, a
// tab or a carriage return gets a leading ' so it is read as text. A phone number in E.164 (+ and digits only)
// is left as it is: it cannot be a formula, and people export numbers to dial them. Called for every cell of
// an export, so the common case is one character compare.
const E164 = /^\+[1-9][0-9]{6,14}$/;
const FORMULA_START = new Set(["=", "+", "-", "@", "\t", "\r"]);

export function spreadsheetSafe(cell: string): string {
  return cell !== "" && FORMULA_START.has(cell[0]!) && !E164.test(cell) ? `'${cell}` : cell;
}
