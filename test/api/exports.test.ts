// Exports (docs/EXPORTS.md): messages, contacts and the opt-out list as CSV (read back here with csv-parse, a
// reader we did not write) or NDJSON; cells a spreadsheet would run as formulas neutralised, phone numbers kept
// as they are; filters; one account never sees another's rows; the opt-out export imported back.
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";

// Room for more exports at once than the pool has connections: the leaving-clients test below aborts one after
// another, and a slot is given back only once its COPY is cancelled, after the next request may have arrived.
const server = useTestServer({ exportsPerAccount: 16 });
const capped = useTestServer({ exportsPerAccount: 2, exportStallMs: 1500 });

async function download(a: TestAccount, path: string) {
  const res = await a.request("GET", path);
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    disposition: res.headers.get("content-disposition"),
    text: await res.text(),
  };
}
const csv = (text: string) => parse<Record<string, string>>(text, { columns: true });

describe("exports", () => {
  it("messages as CSV: every column, formulas neutralised, phone numbers as they are, filters applied", async () => {
    const a = await server().account();
    const other = await server().account();
    const send = async (who: TestAccount, to: string, body: string, extra: Record<string, unknown> = {}) => {
      const res = await who.request("POST", "/api/v1/scheduler/schedule", {
        to,
        from: "ACME",
        body,
        scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
        ...extra,
      });
      expect(res.status).toBe(201);
      return ((await res.json()) as { messageId: string }).messageId;
    };
    const formula = await send(a, "+14155550101", '=HYPERLINK("http://evil.example","click")');
    const plain = await send(a, "+447400123456", 'Hello, "friend"\nsee you', { reference: "@ref-1" });
    await send(other, "+14155550102", "not yours");
    expect((await a.request("DELETE", `/api/v1/scheduler/cancel/${plain}`)).status).toBeLessThan(300);

    const all = await download(a, "/api/v1/exports/messages");
    expect(all.status).toBe(200);
    expect(all.type).toMatch(/^text\/csv/);
    expect(all.disposition).toMatch(/^attachment; filename="messages-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(all.text.split("\n")[0]).toBe(
      "messageId,direction,from,to,body,status,category,priority,segments,encoding,country,campaignId,batchId,reference,connectorId,errorCode,errorMessage,createdAt,scheduledAt,sentAt,deliveredAt,cancelledAt,receivedAt,priceAmount,priceCurrency,pricePerSegment",
    );
    const rows = csv(all.text);
    expect(rows.map((r) => r.messageId)).toEqual([formula, plain]);
    expect(rows[0]).toMatchObject({
      to: "+14155550101",
      body: `'=HYPERLINK("http://evil.example","click")`,
      status: "scheduled",
      country: "US",
      cancelledAt: "",
    });
    expect(rows[1]).toMatchObject({
      to: "+447400123456",
      body: 'Hello, "friend"\nsee you',
      reference: "'@ref-1",
      status: "cancelled",
      country: "GB",
    });
    expect(rows[1]!.cancelledAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    const cancelled = csv((await download(a, "/api/v1/exports/messages?status=cancelled")).text);
    expect(cancelled.map((r) => r.messageId)).toEqual([plain]);
    const none = csv(
      (await download(a, `/api/v1/exports/messages?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).text,
    );
    expect(none).toEqual([]);
    const inbound = csv((await download(a, "/api/v1/exports/messages?direction=inbound")).text);
    expect(inbound).toEqual([]);
  });

  it("messages as NDJSON: one object a line, the same fields", async () => {
    const a = await server().account();
    await a.request("POST", "/api/v1/scheduler/schedule", {
      to: "+14155550103",
      from: "ACME",
      body: "hi",
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    const { type, text } = await download(a, "/api/v1/exports/messages?format=ndjson");
    expect(type).toMatch(/^application\/x-ndjson/);
    const lines = text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ to: "+14155550103", body: "hi", segments: 1, sentAt: null });
  });

  it("contacts, and the opt-out list read back by the import", async () => {
    const a = await server().account();
    expect((await a.request("POST", "/api/v1/contacts", { phone: "+14155550104", firstName: "-Ada" })).status).toBe(201);
    const contacts = csv((await download(a, "/api/v1/exports/contacts")).text);
    expect(contacts).toMatchObject([{ phone: "+14155550104", firstName: "'-Ada", optedOut: "false" }]);

    for (const phone of ["+14155550105", "+14155550106"])
      expect((await a.request("PUT", `/api/v1/opt-outs/${encodeURIComponent(phone)}`, {})).status).toBeLessThan(300);
    const exported = await download(a, "/api/v1/exports/opt-outs");
    const list = csv(exported.text);
    expect(list.map((r) => r.phone).sort()).toEqual(["+14155550105", "+14155550106"]);

    // Into another account: every row added; into the same one: every row there already.
    const b = await server().account();
    const fresh = await b.request("POST", "/api/v1/opt-outs/import", { optOuts: list.map((r) => ({ phone: r.phone })) });
    expect(await fresh.json()).toEqual({ imported: 2, existing: 0, failed: 0, errors: [] });
    const again = await a.request("POST", "/api/v1/opt-outs/import", {
      optOuts: [...list.map((r) => ({ phone: r.phone })), { phone: "555-0107" }, { phone: "+14155550105" }],
    });
    expect(await again.json()).toMatchObject({
      imported: 0,
      existing: 2,
      failed: 2,
      errors: [
        { row: 3, field: "phone", code: "invalid_phone" },
        { row: 4, field: "phone", code: "duplicate_in_import" },
      ],
    });
    const listed = (await (await b.request("GET", "/api/v1/opt-outs")).json()) as { data: { phone: string; source: string }[] };
    expect(listed.data.map((o) => [o.phone, o.source]).sort()).toEqual([
      ["+14155550105", "api"],
      ["+14155550106", "api"],
    ]);
  });

  it("a client that leaves mid-export ends its COPY and gives its connection back; the next export is whole", async () => {
    const s = server();
    const a = await server().account();
    const N = 60_000;
    await s.db.raw(
      `INSERT INTO messages (account_id, job_id, recipient, sender, body, scheduled_at, segments, encoding)
       SELECT ?, gen_random_uuid(), '+14155550100', 'ACME', 'message ' || g, now(), 1, 'GSM-7' FROM generate_series(1, ?) g`,
      [a.accountId, N],
    );
    const copying = async () =>
      (
        await s.db.raw<{ rows: unknown[] }>(
          "SELECT pid FROM pg_stat_activity WHERE query LIKE 'COPY (SELECT%' AND state = 'active' AND datname = current_database() AND pid <> pg_backend_pid()",
        )
      ).rows.length;
    // More clients leaving than the server's pool has connections: a connection kept by any would starve the last.
    for (let i = 0; i < 12; i++) {
      const leaving = new AbortController();
      const res = await fetch(`${s.baseUrl}/api/v1/exports/messages`, {
        headers: { Authorization: `Bearer ${a.key}` },
        signal: leaving.signal,
      });
      expect(res.status).toBe(200);
      expect((await res.body!.getReader().read()).done).toBe(false);
      leaving.abort();
    }
    await waitUntil("no COPY left running", async () => (await copying()) === 0);
    const whole = csv((await download(a, "/api/v1/exports/messages")).text);
    expect(whole).toHaveLength(N);
    expect(new Set(whole.map((r) => r.body)).size).toBe(N);
  });

  it("refuses a bad filter with a 400 problem", async () => {
    const a = await server().account();
    for (const q of ["format=xlsx", "status=lost", "since=soon", "direction=sideways"]) {
      const res = await a.request("GET", `/api/v1/exports/messages?${q}`);
      expect([res.status, ((await res.json()) as { code: string }).code], q).toEqual([400, "validation_failed"]);
    }
  });

  it("stalled readers hold no connection for ever: two exports at once per account (429 beyond), a stalled one cut off", async () => {
    const s = capped();
    const a = await s.account();
    const other = await s.account();
    await s.db.raw(
      `INSERT INTO messages (account_id, job_id, recipient, sender, body, scheduled_at, segments, encoding)
       SELECT ?, gen_random_uuid(), '+14155550100', 'ACME', 'message ' || g || repeat('x', 100), now(), 1, 'GSM-7'
         FROM generate_series(1, 60000) g`,
      [a.accountId],
    );
    const copying = async () =>
      (
        await s.db.raw<{ rows: unknown[] }>(
          "SELECT pid FROM pg_stat_activity WHERE query LIKE 'COPY (SELECT%' AND state = 'active' AND datname = current_database() AND pid <> pg_backend_pid()",
        )
      ).rows.length;
    // Two readers that take the headers and then nothing.
    const stalled = await Promise.all([1, 2].map(() => a.request("GET", "/api/v1/exports/messages")));
    expect(stalled.map((r) => r.status)).toEqual([200, 200]);
    const third = await a.request("GET", "/api/v1/exports/messages");
    expect(third.status).toBe(429);
    expect(third.headers.get("retry-after")).toBe("5");
    expect(((await third.json()) as { code: string }).code).toBe("rate_limited");
    // Another account is not held up by them.
    const theirs = await other.request("GET", "/api/v1/exports/messages");
    expect(theirs.status).toBe(200);
    await theirs.text();
    // Past EXPORT_STALL_MS the stalled responses are cut: their COPYs end, and the account exports again, whole.
    await waitUntil("the stalled exports cut off", async () => (await copying()) === 0, 20_000);
    for (const r of stalled) await expect(r.text()).rejects.toThrow();
    const whole = await download(a, "/api/v1/exports/messages");
    expect(whole.status).toBe(200);
    expect(csv(whole.text)).toHaveLength(60_000);
  });

  it("neutralises a formula behind leading spaces, line breaks, no-break spaces, a BOM or zero-width characters", async () => {
    const a = await server().account();
    const disguised = [" =1+1", "\n=1+1", "\r\n+1+1", "\u00a0=1+1", "\ufeff=1+1", "\u200b@SUM(A1)", "\u202e-1+1", "\t\t=1", "\tplain"];
    const innocent = ["plain =1", "a-b", "+14155550100"];
    const group = (await (await a.request("POST", "/api/v1/contacts/groups", { name: "csv" })).json()) as { groupId: string };
    for (const [i, name] of [...disguised, ...innocent].entries()) {
      const res = await a.request("POST", "/api/v1/contacts", {
        phone: `+1415555${String(1000 + i)}`,
        firstName: name,
        groupId: group.groupId,
      });
      expect(res.status, JSON.stringify(name)).toBe(201);
    }
    const rows = csv((await download(a, "/api/v1/exports/contacts")).text);
    const byName = new Map(rows.map((r) => [r.firstName!.replace(/^'/, ""), r.firstName!]));
    for (const name of disguised) expect(byName.get(name), JSON.stringify(name)).toBe(`'${name}`);
    for (const name of innocent) expect(byName.get(name), JSON.stringify(name)).toBe(name);
  });
});
