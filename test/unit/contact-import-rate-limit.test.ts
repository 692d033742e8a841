// The dashboard's CSV import against a key whose rate limit it outspends: an imported row costs a token, so a
// big file meets 429s; the workflow waits out each Retry-After and sends the same request again, and every row
// is imported once. Real server with a small limit (10 tokens/s, burst 5), real HTTP.
import { describe, expect, it } from "vitest";
import { createSmsClient, type SmsClient } from "../../client/index.js";
import { importContactRows } from "../../dashboard/src/contactImport.js";
import type { ContactRow } from "../../dashboard/src/csv.js";
import { useTestServer } from "../helpers/server.js";

const server = useTestServer({ rateLimitPerSecond: 10, rateLimitBurst: 5, rateLimitBulkPerSecond: 10, rateLimitBulkBurst: 5 });

/** One import request as the page's api.ts sends it: a refusal is thrown with its status and Retry-After. */
async function send(client: SmsClient, contacts: { phone: string; firstName?: string | null }[]) {
  const { data, response } = await client.POST("/api/v1/contacts/import", { body: { contacts } });
  if (response.ok) return data!;
  throw Object.assign(new Error(`refused with ${response.status}`), {
    status: response.status,
    retryAfterSeconds: Number(response.headers.get("Retry-After")),
  });
}

describe("the CSV import under the key's rate limit", () => {
  it("waits out each 429's Retry-After and imports every row once", async () => {
    const { key } = await server().account();
    const client = createSmsClient({ baseUrl: server().baseUrl, apiKey: key });
    const rows: ContactRow[] = Array.from({ length: 12 }, (_v, i) => ({
      line: i + 1,
      phone: `+1415555${String(3000 + i)}`,
      firstName: `P${i}`,
      lastName: null,
      group: null,
      timeZone: null,
      tags: [],
      customFields: {},
    }));
    const waits: { seconds: number; fromLine: number }[] = [];
    const outcome = await importContactRows(rows, (contacts) => send(client, contacts), {
      maxRows: 4,
      onWait: (seconds, fromLine) => waits.push({ seconds, fromLine }),
    });
    expect(outcome.stopped).toBeUndefined();
    expect(outcome.imported).toBe(12);
    expect(outcome.errors).toEqual([]);
    // 4 rows + the request cost 5 tokens: the first request empties the burst, so the next ones are refused first.
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.every((w) => w.seconds >= 1 && [5, 9].includes(w.fromLine))).toBe(true);
    const stored = await server()
      .db("contacts")
      .whereIn(
        "phone",
        rows.map((r) => r.phone),
      )
      .count({ n: "*" });
    expect(Number(stored[0]!.n)).toBe(12);
  });

  it("stops, naming the line, when the wait would be longer than it waits by itself", async () => {
    const { key } = await server().account();
    const client = createSmsClient({ baseUrl: server().baseUrl, apiKey: key });
    const rows: ContactRow[] = Array.from({ length: 8 }, (_v, i) => ({
      line: i + 1,
      phone: `+1415555${String(3100 + i)}`,
      firstName: null,
      lastName: null,
      group: null,
      timeZone: null,
      tags: [],
      customFields: {},
    }));
    const refused = Object.assign(new Error("Too many requests."), { status: 429, retryAfterSeconds: 3600 });
    let calls = 0;
    const outcome = await importContactRows(rows, (contacts) => (++calls === 2 ? Promise.reject(refused) : send(client, contacts)), {
      maxRows: 4,
    });
    expect(outcome.imported).toBe(4);
    expect(outcome.stopped).toEqual({ fromLine: 5, detail: "Too many requests." });
    expect(calls).toBe(2);
  });
});
