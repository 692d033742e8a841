// The dashboard's CSV import workflow (dashboard/src/contactImport.ts): how rows are cut into import requests,
// and how the API's row errors (row n of a request) come back as lines of the file. The last tests run the
// workflow against the real API, with requests small enough that one file makes several.
import { describe, expect, it } from "vitest";
import { createSmsClient, type SmsClient } from "../../client/index.js";
import {
  chunkRows,
  importContactRows,
  lineErrors,
  localProblem,
  MAX_BYTES_PER_REQUEST,
  MAX_ROWS_PER_REQUEST,
} from "../../dashboard/src/contactImport.js";
import { contactsFromCsv, type ContactRow } from "../../dashboard/src/csv.js";
import { useTestServer } from "../helpers/server.js";

const server = useTestServer();

/** One import request, as the page sends it: a problem answer is thrown with its detail. */
async function importContacts(client: SmsClient, contacts: { phone: string; firstName?: string | null; group?: string | null }[]) {
  const { data, error, response } = await client.POST("/api/v1/contacts/import", { body: { contacts } });
  if (!response.ok) throw new Error((error as { detail: string }).detail);
  return data!;
}

const row = (line: number, phone: string, extra: Partial<ContactRow> = {}): ContactRow => ({
  line,
  phone,
  firstName: null,
  lastName: null,
  group: null,
  timeZone: null,
  tags: [],
  customFields: {},
  ...extra,
});
const rows = (n: number, extra: Partial<ContactRow> = {}) =>
  Array.from({ length: n }, (_, i) => row(i + 2, `+1415555${String(i).padStart(4, "0")}`, extra));
const bodyBytes = (chunk: ContactRow[]) =>
  new TextEncoder().encode(JSON.stringify({ contacts: chunk.map(({ phone, firstName, group }) => ({ phone, firstName, group })) })).length;

describe("chunkRows", () => {
  it("keeps every row once, in file order, and cuts at the row limit", () => {
    const all = rows(12);
    const chunks = chunkRows(all, 5);
    expect(chunks.map((c) => c.length)).toEqual([5, 5, 2]);
    expect(chunks.flat()).toEqual(all);
  });

  it("cuts at the body size when rows are long, every request under the limit", () => {
    const all = rows(3000, { firstName: "é".repeat(100), group: "g".repeat(1000) }); // about 1.3 kB a row
    const chunks = chunkRows(all);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.flat()).toEqual(all);
    for (const chunk of chunks) expect(bodyBytes(chunk)).toBeLessThanOrEqual(MAX_BYTES_PER_REQUEST);
    // Full requests: the next row would not have fitted.
    expect(bodyBytes([...chunks[0]!, all[chunks[0]!.length]!])).toBeGreaterThan(MAX_BYTES_PER_REQUEST);
  });

  it("sends short rows in requests of the row limit, under the API's 10,000", () => {
    const chunks = chunkRows(rows(12_000));
    expect(chunks.map((c) => c.length)).toEqual([MAX_ROWS_PER_REQUEST, MAX_ROWS_PER_REQUEST, 2000]);
    expect(MAX_ROWS_PER_REQUEST).toBeLessThanOrEqual(10_000);
  });

  it("makes no request for no rows", () => {
    expect(chunkRows([])).toEqual([]);
  });
});

describe("lineErrors", () => {
  it("maps the 1-based row of a request to the line of the file its row came from", () => {
    const chunk = [row(7, "+14155550101"), row(9, "bad"), row(12, "+14155550101")];
    const errors = lineErrors(chunk, [
      { row: 2, field: "phone", code: "invalid_phone", detail: "not a phone" },
      { row: 3, field: "phone", code: "duplicate_in_import", detail: "duplicate" },
      { row: 3, field: "group", code: "group_not_found", detail: "no group" },
    ]);
    expect(errors).toEqual([
      { line: 9, field: "phone", detail: "not a phone" },
      { line: 12, field: "phone", detail: "duplicate" },
      { line: 12, field: "group", detail: "no group" },
    ]);
  });

  it("refuses a row number outside the request rather than show a wrong line", () => {
    expect(() => lineErrors([row(2, "+14155550101")], [{ row: 2, field: "phone", code: "x", detail: "y" }])).toThrow(
      /row 2 of a request of 1 rows/,
    );
  });
});

describe("localProblem", () => {
  it("reports rows the API would refuse as a whole request, at their line", () => {
    expect(localProblem(row(3, ""))).toEqual({ line: 3, field: "phone", detail: "The phone number is missing." });
    expect(localProblem(row(4, "+1".padEnd(65, "5")))?.field).toBe("phone");
    expect(localProblem(row(5, "+14155550101", { firstName: "a".repeat(101) }))?.field).toBe("firstName");
    expect(localProblem(row(6, "+14155550101", { group: "g".repeat(1001) }))?.field).toBe("group");
    expect(localProblem(row(7, "+14155550101", { firstName: "a".repeat(100), group: "g".repeat(1000) }))).toBeUndefined();
  });
});

describe("importContactRows against the API", () => {
  // Line 1 is the header; line 3's record spans two lines, so from line 4 on, lines and rows part ways.
  const csv = [
    "phone,firstName,group",
    "+14155550101,Ada,Team", // 2
    '+14155550102,"Grace\nHopper",Team', // 3-4
    "12345,Bad phone,Team", // 5: invalid_phone
    ",No phone,Team", // 6: refused here, never sent
    "+14155550106,Nobody,No such group", // 7: group_not_found
    "+14155550107,Linus,", // 8
    "+1 415 555 0101,Ada again,Team", // 9: contact_exists (line 2 is in an earlier request)
    "+14155550109,Ken,Team", // 10
    "+14155550109,Ken again,Team", // 11: duplicate_in_import (same request as line 10)
  ].join("\n");

  it("imports in several requests and reports every failing row at its line of the file", async () => {
    const { account } = server();
    const { key } = await account();
    const client = createSmsClient({ baseUrl: server().baseUrl, apiKey: key });
    await client.POST("/api/v1/contacts/groups", { body: { name: "Team" } });
    const sent: number[][] = [];
    const { rows: parsed } = contactsFromCsv(csv);

    const outcome = await importContactRows(
      parsed,
      async (contacts) => {
        sent.push(contacts.map((c) => parsed.find((r) => r.phone === c.phone && r.firstName === c.firstName)!.line));
        return importContacts(client, contacts);
      },
      { maxRows: 3 },
    );

    expect(sent).toEqual([
      [2, 3, 5],
      [7, 8, 9],
      [10, 11],
    ]);
    expect(outcome).toEqual({
      imported: 4,
      failed: 5,
      errors: [
        { line: 5, field: "phone", detail: expect.stringContaining("must be a phone number with its +country prefix") },
        { line: 6, field: "phone", detail: "The phone number is missing." },
        { line: 7, field: "group", detail: expect.stringContaining("No group") },
        { line: 9, field: "phone", detail: expect.stringContaining("already exists") },
        { line: 11, field: "phone", detail: expect.stringContaining("already in line 10 of the file") },
      ],
    });
    const stored = (await client.GET("/api/v1/contacts", { params: { query: { limit: 100 } } })).data!.data;
    expect(stored.map((c) => c.firstName).sort()).toEqual(["Ada", "Grace\nHopper", "Ken", "Linus"]);
  });

  it("stops at a request the API refuses as a whole, keeping what was imported and naming the line", async () => {
    const { account, baseUrl } = server();
    const { key } = await account();
    const client = createSmsClient({ baseUrl, apiKey: key });
    const revoked = createSmsClient({ baseUrl, apiKey: `${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}` });
    const { rows: parsed } = contactsFromCsv("+14155550201\n+14155550202\n+14155550203\n+14155550204\n+14155550205");
    let requests = 0;

    // The second request goes with a key the API does not accept: a 401 for the whole request.
    const outcome = await importContactRows(parsed, (contacts) => importContacts(++requests === 1 ? client : revoked, contacts), {
      maxRows: 2,
    });

    expect(requests).toBe(2);
    expect(outcome).toEqual({ imported: 2, failed: 3, errors: [], stopped: { fromLine: 3, detail: expect.any(String) } });
    expect(outcome.stopped!.detail.length).toBeGreaterThan(0);
    const stored = (await client.GET("/api/v1/contacts")).data!.data;
    expect(stored.map((c) => c.phone).sort()).toEqual(["+14155550201", "+14155550202"]);
  });
});
