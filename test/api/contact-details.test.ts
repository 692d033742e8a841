// Richer contacts through the API (docs/API.md, "Contacts"): a last name, tags and custom fields, their limits
// (a 400 naming the field; an import's row error), and finding contacts by name, number or tag.
import { beforeAll, describe, expect, it } from "vitest";
import { problemOf, useTestServer, type TestAccount } from "../helpers/server.js";

const server = useTestServer();
let a: TestAccount;
beforeAll(async () => {
  a = await server().account();
});

interface ContactBody {
  contactId: string;
  phone: string;
  firstName: string | null;
  lastName: string | null;
  tags: string[];
  customFields: Record<string, string>;
}

async function create(body: Record<string, unknown>): Promise<ContactBody> {
  const res = await a.request("POST", "/api/v1/contacts", body);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as ContactBody;
}

const phonesOf = async (who: TestAccount, query: string) => {
  const res = await who.request("GET", `/api/v1/contacts?${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { data: ContactBody[] }).data.map((c) => c.phone).sort();
};

describe("a contact's details", () => {
  it("keeps a last name, tidied tags and custom fields; a change replaces them; a plain contact has none", async () => {
    const ada = await create({
      phone: "+14155550201",
      firstName: "Ada",
      lastName: "Lovelace",
      tags: [" vip ", "newsletter", "vip", ""],
      customFields: { plan: "gold", city: "London" },
    });
    expect(ada).toMatchObject({ lastName: "Lovelace", tags: ["vip", "newsletter"], customFields: { plan: "gold", city: "London" } });
    const changed = await a.request("PATCH", `/api/v1/contacts/${ada.contactId}`, { tags: ["alumni"], customFields: { plan: "silver" } });
    expect(await changed.json()).toMatchObject({ lastName: "Lovelace", tags: ["alumni"], customFields: { plan: "silver" } });
    const cleared = await a.request("PATCH", `/api/v1/contacts/${ada.contactId}`, { lastName: null, tags: [] });
    expect(await cleared.json()).toMatchObject({ lastName: null, tags: [], customFields: { plan: "silver" } });
    expect(await create({ phone: "+14155550202" })).toMatchObject({ lastName: null, tags: [], customFields: {} });
  });

  it("refuses tags and custom fields beyond the limits with a 400 naming the field, and stores nothing", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ tags: ["x".repeat(51)] }, "/body/tags"],
      [{ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, "/body/tags"],
      [{ customFields: { "1st": "x" } }, "/body/customFields"],
      [{ customFields: { "a key": "x" } }, "/body/customFields"],
      [{ customFields: { plan: "x".repeat(501) } }, "/body/customFields"],
      [{ customFields: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, "v"])) }, "/body/customFields"],
      [{ customFields: { plan: 3 } }, "/body/customFields/plan"],
    ];
    for (const [body, path] of cases) {
      const res = await a.request("POST", "/api/v1/contacts", { phone: "+14155550299", ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await problemOf(res)).errors?.map((e) => e.path)).toContain(path);
    }
    expect(await phonesOf(a, "q=4155550299")).toEqual([]);
  });

  it("imports them, each row's problems reported and the other rows stored", async () => {
    const res = await a.request("POST", "/api/v1/contacts/import", {
      contacts: [
        { phone: "+14155550211", firstName: "Grace", lastName: "Hopper", tags: ["navy"], customFields: { rank: "admiral" } },
        { phone: "+14155550212", tags: ["x".repeat(60)] },
        { phone: "+14155550213", customFields: { "bad key": "v" } },
        { phone: "+14155550214", lastName: "y".repeat(101) },
      ],
    });
    expect(res.status).toBe(200);
    const result = (await res.json()) as { imported: number; contacts: ContactBody[]; errors: { row: number; code: string }[] };
    expect(result.imported).toBe(1);
    expect(result.contacts[0]).toMatchObject({ lastName: "Hopper", tags: ["navy"], customFields: { rank: "admiral" } });
    expect(result.errors.map((e) => [e.row, e.code])).toEqual([
      [2, "invalid_tags"],
      [3, "invalid_custom_fields"],
      [4, "last_name_too_long"],
    ]);
  });
});

describe("finding contacts", () => {
  it("by first, last or full name in any case, by the digits of the number, by tag, and together", async () => {
    const b = await server().account();
    const made = async (body: Record<string, unknown>) => expect((await b.request("POST", "/api/v1/contacts", body)).status).toBe(201);
    await made({ phone: "+14155550301", firstName: "Ada", lastName: "Lovelace", tags: ["vip"] });
    await made({ phone: "+14155550302", firstName: "Adam", lastName: "Smith", tags: ["newsletter"] });
    await made({ phone: "+447400123403", firstName: "Grace", lastName: "Hopper", tags: ["vip", "newsletter"] });
    await made({ phone: "+14155550304", firstName: "100%", lastName: null });
    expect(await phonesOf(b, "q=ada")).toEqual(["+14155550301", "+14155550302"]);
    expect(await phonesOf(b, "q=LOVELACE")).toEqual(["+14155550301"]);
    expect(await phonesOf(b, `q=${encodeURIComponent("ada lovelace")}`)).toEqual(["+14155550301"]);
    expect(await phonesOf(b, `q=${encodeURIComponent("(415) 555-03")}`)).toEqual(["+14155550301", "+14155550302", "+14155550304"]);
    expect(await phonesOf(b, "q=7400")).toEqual(["+447400123403"]);
    expect(await phonesOf(b, `q=${encodeURIComponent("%")}`)).toEqual(["+14155550304"]);
    expect(await phonesOf(b, "tag=vip")).toEqual(["+14155550301", "+447400123403"]);
    expect(await phonesOf(b, "tag=VIP")).toEqual([]);
    expect(await phonesOf(b, "tag=newsletter&q=grace")).toEqual(["+447400123403"]);
    // Another account's contacts never show.
    expect(await phonesOf(a, "q=lovelace")).not.toContain("+14155550301");
  });
});
