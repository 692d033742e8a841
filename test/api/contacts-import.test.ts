import { describe, expect, it } from "vitest";
import { problemOf, useTestServer, type TestAccount } from "../helpers/server.js";

const server = useTestServer();
const IMPORT = "/api/v1/contacts/import";

async function createGroup(a: TestAccount, name: string) {
  const { data } = await a.client.POST("/api/v1/contacts/groups", { body: { name } });
  return data!;
}

async function allContacts(a: TestAccount) {
  const { data } = await a.client.GET("/api/v1/contacts", { params: { query: { limit: 100 } } });
  return data!.data;
}

const contactCount = async (a: TestAccount) =>
  Number((await server().db("contacts").where({ account_id: a.accountId }).count({ n: "*" }))[0]!.n);

describe("POST /contacts/import", () => {
  it("stores the valid rows and reports every bad field with its 1-based row", async () => {
    const a = await server().account();
    const vip = await createGroup(a, "VIP");
    const staff = await createGroup(a, "Staff");
    await a.client.POST("/api/v1/contacts", { body: { phone: "+14155550200" } });
    const { data, response } = await a.client.POST(IMPORT, {
      body: {
        contacts: [
          /* 1 */ { phone: "+1 (415) 555-0201", firstName: "Ada", group: "vip" },
          /* 2 */ { phone: "+14155550202", group: staff.groupId.toUpperCase() },
          /* 3 */ { phone: "555-0203", firstName: "NoPrefix" },
          /* 4 */ { phone: "+14155550204", firstName: "x".repeat(101) },
          /* 5 */ { phone: "+14155550205", group: "Nobody" },
          /* 6 */ { phone: "+1.415.555.0201" },
          /* 7 */ { phone: "not a phone", firstName: "y".repeat(101), group: "missing" },
          /* 8 */ { phone: "+14155550200", firstName: "Exists" },
          /* 9 */ { phone: "+14155550209", firstName: "z".repeat(100), group: "" },
          /* 10 */ { phone: "+14155550210", firstName: null, group: null, timeZone: "America/Chicago" },
          /* 11 */ { phone: "+14155550211", timeZone: "Chicago" },
        ],
      },
    });
    expect(response.status).toBe(200);
    expect(data!.imported).toBe(4);
    expect(data!.failed).toBe(7);
    expect(data!.contacts.map((c) => [c.phone, c.firstName, c.groupId, c.timeZone])).toEqual([
      ["+14155550201", "Ada", vip.groupId, null],
      ["+14155550202", null, staff.groupId, null],
      ["+14155550209", "z".repeat(100), null, null],
      ["+14155550210", null, null, "America/Chicago"],
    ]);
    expect(data!.errors.map(({ row, field, code }) => ({ row, field, code }))).toEqual([
      { row: 3, field: "phone", code: "invalid_phone" },
      { row: 4, field: "firstName", code: "first_name_too_long" },
      { row: 5, field: "group", code: "group_not_found" },
      { row: 6, field: "phone", code: "duplicate_in_import" },
      { row: 7, field: "phone", code: "invalid_phone" },
      { row: 7, field: "firstName", code: "first_name_too_long" },
      { row: 7, field: "group", code: "group_not_found" },
      { row: 8, field: "phone", code: "contact_exists" },
      { row: 11, field: "timeZone", code: "invalid_time_zone" },
    ]);
    expect(data!.errors[3]!.detail).toContain("row 1");
    for (const e of data!.errors) expect(e.detail.length).toBeGreaterThan(0);

    const stored = await allContacts(a);
    expect(stored.map((c) => c.phone).sort()).toEqual(["+14155550200", "+14155550201", "+14155550202", "+14155550209", "+14155550210"]);
    const { data: vipNow } = await a.client.GET("/api/v1/contacts/groups/{groupId}", { params: { path: { groupId: vip.groupId } } });
    expect(vipNow!.contactCount).toBe(1);
  });

  it("resolves a group by id before a group whose name is that id", async () => {
    const a = await server().account();
    const target = await createGroup(a, "target");
    const impostor = await createGroup(a, target.groupId);
    const { data } = await a.client.POST(IMPORT, { body: { contacts: [{ phone: "+14155550220", group: target.groupId }] } });
    expect(data!.contacts[0]!.groupId).toBe(target.groupId);
    expect(impostor.groupId).not.toBe(target.groupId);
  });

  it("never resolves another account's group, by name or by id", async () => {
    const a = await server().account();
    const b = await server().account();
    const theirs = await createGroup(b, "Theirs");
    const { data } = await a.client.POST(IMPORT, {
      body: {
        contacts: [{ phone: "+14155550230", group: "Theirs" }, { phone: "+14155550231", group: theirs.groupId }, { phone: "+14155550232" }],
      },
    });
    expect(data).toMatchObject({ imported: 1, failed: 2 });
    expect(data!.errors.map((e) => [e.row, e.code])).toEqual([
      [1, "group_not_found"],
      [2, "group_not_found"],
    ]);
    const { data: theirsNow } = await b.client.GET("/api/v1/contacts/groups/{groupId}", { params: { path: { groupId: theirs.groupId } } });
    expect(theirsNow!.contactCount).toBe(0);
    // The same phone in another account is not `contact_exists`.
    const { data: inB } = await b.client.POST(IMPORT, { body: { contacts: [{ phone: "+14155550232", group: "theirs" }] } });
    expect(inB).toMatchObject({ imported: 1, failed: 0, errors: [] });
  });

  it("takes 10,000 rows, and answers 400 storing nothing for 10,001", async () => {
    const a = await server().account();
    const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ phone: `+1415555${String(i).padStart(4, "0")}` }));
    const tooMany = await a.request("POST", IMPORT, { contacts: [...rows(10_000), { phone: "+14155550000" }] });
    expect(tooMany.status).toBe(400);
    expect((await problemOf(tooMany)).code).toBe("validation_failed");
    expect(await contactCount(a)).toBe(0);

    const res = await a.request("POST", IMPORT, { contacts: rows(10_000) });
    expect(res.status).toBe(200);
    const result = (await res.json()) as { imported: number; failed: number; contacts: { phone: string }[] };
    expect(result).toMatchObject({ imported: 10_000, failed: 0 });
    expect(result.contacts[9_999]!.phone).toBe("+14155559999");
    expect(await contactCount(a)).toBe(10_000);
  });

  it("answers 400 for a malformed body and stores nothing", async () => {
    const a = await server().account();
    const bodies: unknown[] = [
      { contacts: [] },
      { contacts: { phone: "+14155550240" } },
      [{ phone: "+14155550240" }],
      { contacts: [{ phone: "+14155550240" }], extra: true },
      { contacts: [{ phone: "+14155550240" }, { phone: "+14155550241", email: "a@example.com" }] },
      { contacts: [{ phone: "+14155550240" }, { firstName: "no phone" }] },
      { contacts: [{ phone: "+1".padEnd(65, "5") }] },
    ];
    for (const body of bodies) {
      const res = await a.request("POST", IMPORT, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await problemOf(res)).code).toBe("validation_failed");
    }
    expect(await contactCount(a)).toBe(0);
  });

  it("replays the first answer for a repeated Idempotency-Key and refuses it with another body", async () => {
    const a = await server().account();
    const body = { contacts: [{ phone: "+14155550250" }, { phone: "bad" }] };
    const first = await a.request("POST", IMPORT, body, { "Idempotency-Key": "import-1" });
    const again = await a.request("POST", IMPORT, body, { "Idempotency-Key": "import-1" });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(await first.json());
    expect(await contactCount(a)).toBe(1);
    const other = await a.request("POST", IMPORT, { contacts: [{ phone: "+14155550251" }] }, { "Idempotency-Key": "import-1" });
    expect(other.status).toBe(409);
    expect((await problemOf(other)).code).toBe("idempotency_key_reused");
  });

  it("stores each phone once when imports race, the loser reporting contact_exists", async () => {
    const a = await server().account();
    const contacts = Array.from({ length: 200 }, (_, i) => ({ phone: `+1415555${String(3000 + i)}` }));
    const results = await Promise.all(
      [0, 1, 2].map(
        async () =>
          (await (await a.request("POST", IMPORT, { contacts })).json()) as {
            imported: number;
            failed: number;
            errors: { code: string }[];
          },
      ),
    );
    expect(results.reduce((n, r) => n + r.imported, 0)).toBe(200);
    for (const r of results) {
      expect(r.imported + r.failed).toBe(200);
      expect(r.errors.every((e) => e.code === "contact_exists")).toBe(true);
    }
    expect(await contactCount(a)).toBe(200);
  });
});
