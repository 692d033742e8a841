// Import contacts from CSV text (phone,firstName,group) in one request: valid rows are stored even when
// others fail, and every bad field comes back with its row number.
//   SMS_API_KEY=sms_... node --import tsx client/examples/import.ts
import type { components, SmsClient } from "../index.js";
import { clientFromEnv, isMain, ok } from "./common.js";

type Row = components["schemas"]["ImportContactRow"];

/** A deliberately small CSV reader (no quoted fields); use a real CSV parser for files from elsewhere. */
export function rowsFromCsv(csv: string): Row[] {
  const [, ...lines] = csv.trim().split(/\r?\n/); // the first line is the header
  return lines.map((line) => {
    const [phone = "", firstName = "", group = ""] = line.split(",").map((f) => f.trim());
    return { phone, firstName: firstName || null, group: group || null };
  });
}

export async function importContacts(sms: SmsClient, csv: string) {
  const contacts = rowsFromCsv(csv); // at most 10,000 rows a request
  const result = ok(await sms.POST("/api/v1/contacts/import", { body: { contacts } }));
  console.log(`import: ${result.imported} imported, ${result.failed} rows failed`);
  // `row` is 1-based in `contacts`, so data row n is line n + 1 of the file (after the header).
  for (const e of result.errors) console.log(`line ${e.row + 1}: ${e.field} ${e.code} (${e.detail})`);
  return result;
}

const sample = `phone,firstName,group
+1 415 555 0146,Ada,
+44 7911 123457,Grace,
555-0152,Lin,
+1 415 555 0146,Ada again,`;

if (isMain(import.meta.url)) await importContacts(clientFromEnv(), sample);
