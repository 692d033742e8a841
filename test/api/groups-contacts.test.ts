import { describe, expect, it } from "vitest";
import { problemOf, useTestServer, type TestAccount } from "../helpers/server.js";

const server = useTestServer();

async function createGroup(a: TestAccount, name: string, description?: string) {
  const { data, response } = await a.client.POST("/api/v1/contacts/groups", { body: { name, description } });
  expect(response.status).toBe(201);
  return data!;
}

describe("groups", () => {
  it("creates, gets and lists groups with contact counts", async () => {
    const a = await server().account();
    const vip = await createGroup(a, "VIP", "Gold card");
    expect(vip).toMatchObject({ name: "VIP", description: "Gold card", contactCount: 0 });
    const plain = await createGroup(a, "all");
    expect(plain.description).toBeNull();
    await a.client.POST("/api/v1/contacts", { body: { phone: "+14155550101", groupId: vip.groupId } });
    const { data: got } = await a.client.GET("/api/v1/contacts/groups/{groupId}", { params: { path: { groupId: vip.groupId } } });
    expect(got!.contactCount).toBe(1);
    const { data: list } = await a.client.GET("/api/v1/contacts/groups/all");
    expect(list!.data.map((g) => g.name)).toEqual(["all", "VIP"]);
  });

  it("answers 409 group_exists for a duplicate name, regardless of case", async () => {
    const a = await server().account();
    await createGroup(a, "Customers");
    const res = await a.request("POST", "/api/v1/contacts/groups", { name: "customers" });
    expect(res.status).toBe(409);
    expect((await problemOf(res)).code).toBe("group_exists");
  });

  it("validates name length and rejects unknown fields", async () => {
    const a = await server().account();
    expect((await a.request("POST", "/api/v1/contacts/groups", { name: "" })).status).toBe(400);
    expect((await a.request("POST", "/api/v1/contacts/groups", { name: "x".repeat(101) })).status).toBe(400);
    const extra = await a.request("POST", "/api/v1/contacts/groups", { name: "ok", color: "red" });
    expect((await problemOf(extra)).errors).toEqual([{ path: "/body/color", message: "is not a known field" }]);
  });

  it("deleting a group keeps its contacts, unassigned", async () => {
    const a = await server().account();
    const g = await createGroup(a, "Temp");
    const { data: c1 } = await a.client.POST("/api/v1/contacts", { body: { phone: "+14155550102", firstName: "Ada", groupId: g.groupId } });
    const { data: c2 } = await a.client.POST("/api/v1/contacts", { body: { phone: "+14155550103", groupId: g.groupId } });
    const del = await a.request("DELETE", `/api/v1/contacts/groups/${g.groupId}`);
    expect(del.status).toBe(204);
    for (const c of [c1!, c2!]) {
      const { data } = await a.client.GET("/api/v1/contacts/{contactId}", { params: { path: { contactId: c.contactId } } });
      expect(data).toMatchObject({ contactId: c.contactId, phone: c.phone, groupId: null });
    }
    expect((await a.request("GET", `/api/v1/contacts/groups/${g.groupId}`)).status).toBe(404);
    expect((await a.request("DELETE", `/api/v1/contacts/groups/${g.groupId}`)).status).toBe(404);
  });
});

describe("contacts", () => {
  it("creates a contact in E.164 and rejects a duplicate phone with 409 contact_exists", async () => {
    const a = await server().account();
    const { data, response } = await a.client.POST("/api/v1/contacts", { body: { phone: "+1 415.555.0110", firstName: "Grace" } });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ phone: "+14155550110", firstName: "Grace", groupId: null });
    const dup = await a.request("POST", "/api/v1/contacts", { phone: "+14155550110" });
    expect(dup.status).toBe(409);
    expect((await problemOf(dup)).code).toBe("contact_exists");
    // Another account may store the same number.
    const b = await server().account();
    expect((await b.request("POST", "/api/v1/contacts", { phone: "+14155550110" })).status).toBe(201);
  });

  it("keeps a contact's time zone, clears it with null, and refuses an unknown zone with 422 invalid_time_zone", async () => {
    const a = await server().account();
    const { data: c } = await a.client.POST("/api/v1/contacts", { body: { phone: "+14155550120", timeZone: "America/Los_Angeles" } });
    expect(c).toMatchObject({ timeZone: "America/Los_Angeles" });
    const bad = await a.request("POST", "/api/v1/contacts", { phone: "+14155550121", timeZone: "America/Springfield" });
    expect(bad.status).toBe(422);
    expect(await problemOf(bad)).toMatchObject({ code: "invalid_time_zone", errors: [{ path: "/body/timeZone" }] });
    const path = `/api/v1/contacts/${c!.contactId}`;
    const badPatch = await a.request("PATCH", path, { timeZone: "Nowhere/Else" });
    expect(badPatch.status).toBe(422);
    expect(await (await a.request("GET", path)).json()).toMatchObject({ timeZone: "America/Los_Angeles" });
    expect(await (await a.request("PATCH", path, { timeZone: "Europe/Berlin" })).json()).toMatchObject({ timeZone: "Europe/Berlin" });
    expect(await (await a.request("PATCH", path, { timeZone: null })).json()).toMatchObject({ timeZone: null });
    expect((await a.client.GET("/api/v1/contacts")).data!.data.map((x) => x.timeZone)).toEqual([null]);
  });

  it("answers 422 group_not_found for an unknown or foreign group", async () => {
    const a = await server().account();
    const b = await server().account();
    const foreign = await createGroup(b, "theirs");
    for (const groupId of ["00000000-0000-4000-8000-000000000000", foreign.groupId]) {
      const res = await a.request("POST", "/api/v1/contacts", { phone: "+14155550111", groupId });
      expect(res.status).toBe(422);
      expect((await problemOf(res)).code).toBe("group_not_found");
    }
  });

  it("updates phone, first name and group with PATCH; null unassigns", async () => {
    const a = await server().account();
    const g1 = await createGroup(a, "one");
    const g2 = await createGroup(a, "two");
    const { data: c } = await a.client.POST("/api/v1/contacts", { body: { phone: "+14155550112", groupId: g1.groupId } });
    const path = { params: { path: { contactId: c!.contactId } } };
    const moved = await a.client.PATCH("/api/v1/contacts/{contactId}", { ...path, body: { groupId: g2.groupId, firstName: "Lin" } });
    expect(moved.data).toMatchObject({ groupId: g2.groupId, firstName: "Lin", phone: "+14155550112" });
    expect(Date.parse(moved.data!.updatedAt)).toBeGreaterThanOrEqual(Date.parse(c!.updatedAt));
    const unassigned = await a.client.PATCH("/api/v1/contacts/{contactId}", { ...path, body: { groupId: null, phone: "+14155550113" } });
    expect(unassigned.data).toMatchObject({ groupId: null, firstName: "Lin", phone: "+14155550113" });
    const bad = await a.request("PATCH", `/api/v1/contacts/${c!.contactId}`, { groupId: "00000000-0000-4000-8000-000000000000" });
    expect(bad.status).toBe(422);
    await a.client.POST("/api/v1/contacts", { body: { phone: "+14155550114" } });
    const clash = await a.request("PATCH", `/api/v1/contacts/${c!.contactId}`, { phone: "+14155550114" });
    expect(clash.status).toBe(409);
    expect((await problemOf(clash)).code).toBe("contact_exists");
  });

  it("lists the contacts with given numbers (the generated client writes them comma-separated), the account's only", async () => {
    const a = await server().account();
    const b = await server().account();
    for (const [who, phone, firstName] of [
      [a, "+14155550161", "Ada"],
      [a, "+14155550162", "Grace"],
      [b, "+14155550163", "Linus"],
    ] as const)
      expect((await who.client.POST("/api/v1/contacts", { body: { phone, firstName } })).response.status).toBe(201);
    const { data, response } = await a.client.GET("/api/v1/contacts", {
      params: { query: { phones: ["+14155550161", "+14155550163", "+14155550199"] } },
    });
    expect(new URL(response.url).searchParams.get("phones")).toBe("+14155550161,+14155550163,+14155550199");
    expect(data!.data.map((c) => [c.phone, c.firstName])).toEqual([["+14155550161", "Ada"]]);
  });

  it("lists contacts by group with pagination and deletes them", async () => {
    const a = await server().account();
    const g = await createGroup(a, "paged");
    for (let i = 0; i < 3; i++) await a.client.POST("/api/v1/contacts", { body: { phone: `+1415555012${i}`, groupId: g.groupId } });
    await a.client.POST("/api/v1/contacts", { body: { phone: "+14155550129" } });
    const page1 = await a.client.GET("/api/v1/contacts", { params: { query: { groupId: g.groupId, limit: 2 } } });
    expect(page1.data!.data).toHaveLength(2);
    const page2 = await a.client.GET("/api/v1/contacts", {
      params: { query: { groupId: g.groupId, limit: 2, cursor: page1.data!.nextCursor! } },
    });
    expect(page2.data!.data).toHaveLength(1);
    expect(page2.data!.nextCursor).toBeNull();
    const id = page2.data!.data[0]!.contactId;
    expect((await a.request("DELETE", `/api/v1/contacts/${id}`)).status).toBe(204);
    expect((await a.request("GET", `/api/v1/contacts/${id}`)).status).toBe(404);
  });
});

describe("several groups per contact", () => {
  it("keeps a contact's groups in order, groupId the first; lists, counts, replaces and leaves them", async () => {
    const a = await server().account();
    const [vip, news, local] = [await createGroup(a, "VIP"), await createGroup(a, "Newsletter"), await createGroup(a, "Local")];
    const { data: ada, response } = await a.client.POST("/api/v1/contacts", {
      body: { phone: "+14155550161", firstName: "Ada", groupIds: [news.groupId, vip.groupId, news.groupId] },
    });
    expect(response.status).toBe(201);
    expect(ada).toMatchObject({ groupId: news.groupId, groupIds: [news.groupId, vip.groupId] });
    await a.client.POST("/api/v1/contacts", { body: { phone: "+14155550162", groupId: vip.groupId } });
    const { data: got } = await a.client.GET("/api/v1/contacts/{contactId}", { params: { path: { contactId: ada!.contactId } } });
    expect(got!.groupIds).toEqual([news.groupId, vip.groupId]);

    const members = async (groupId: string) =>
      (await a.client.GET("/api/v1/contacts", { params: { query: { groupId } } })).data!.data.map((c) => c.phone).sort();
    expect(await members(vip.groupId)).toEqual(["+14155550161", "+14155550162"]);
    expect(await members(news.groupId)).toEqual(["+14155550161"]);
    const count = async (groupId: string) =>
      (await a.client.GET("/api/v1/contacts/groups/{groupId}", { params: { path: { groupId } } })).data!.contactCount;
    expect([await count(vip.groupId), await count(news.groupId), await count(local.groupId)]).toEqual([2, 1, 0]);

    // Replaced whole, in the new order; groupId alone moves it to one group; null takes it out of all.
    const update = async (body: Record<string, unknown>) =>
      (await (await a.request("PATCH", `/api/v1/contacts/${ada!.contactId}`, body)).json()) as {
        groupId: string | null;
        groupIds: string[];
      };
    expect(await update({ groupIds: [local.groupId, news.groupId] })).toMatchObject({
      groupId: local.groupId,
      groupIds: [local.groupId, news.groupId],
    });
    expect(await members(vip.groupId)).toEqual(["+14155550162"]);
    expect(await update({ firstName: "Ada L." })).toMatchObject({ groupIds: [local.groupId, news.groupId] });

    // Deleting its first group: the next becomes groupId.
    expect((await a.request("DELETE", `/api/v1/contacts/groups/${local.groupId}`)).status).toBe(204);
    const { data: after } = await a.client.GET("/api/v1/contacts/{contactId}", { params: { path: { contactId: ada!.contactId } } });
    expect(after).toMatchObject({ groupId: news.groupId, groupIds: [news.groupId] });
    expect(await update({ groupId: vip.groupId })).toMatchObject({ groupId: vip.groupId, groupIds: [vip.groupId] });
    expect(await update({ groupId: null })).toMatchObject({ groupId: null, groupIds: [] });
  });

  it("refuses groupId with groupIds (400) and a group not of the account (422 naming it)", async () => {
    const a = await server().account();
    const b = await server().account();
    const mine = await createGroup(a, "Mine");
    const theirs = await createGroup(b, "Theirs");
    const both = await a.request("POST", "/api/v1/contacts", { phone: "+14155550171", groupId: mine.groupId, groupIds: [mine.groupId] });
    expect(both.status).toBe(400);
    expect((await problemOf(both)).errors).toEqual([expect.objectContaining({ path: "/body/groupIds" })]);
    const foreign = await a.request("POST", "/api/v1/contacts", { phone: "+14155550172", groupIds: [mine.groupId, theirs.groupId] });
    expect(foreign.status).toBe(422);
    const problem = await problemOf(foreign);
    expect(problem.code).toBe("group_not_found");
    expect(problem.errors).toEqual([expect.objectContaining({ path: "/body/groupIds/1" })]);
    expect((await a.client.GET("/api/v1/contacts", { params: { query: { phones: ["+14155550172"] } } })).data!.data).toEqual([]);
  });

  it("a campaign to any of a contact's groups reaches it once", async () => {
    const a = await server().account();
    const [one, two] = [await createGroup(a, "One"), await createGroup(a, "Two")];
    await a.client.POST("/api/v1/contacts", { body: { phone: "+14155550181", lastName: "Both", groupIds: [one.groupId, two.groupId] } });
    await a.client.POST("/api/v1/contacts", { body: { phone: "+14155550182", groupIds: [two.groupId] } });
    for (const [group, total] of [
      [one, 1],
      [two, 2],
    ] as const) {
      const { data } = await a.client.POST("/api/v1/campaigns", {
        body: {
          name: group.name,
          message: "Hi",
          type: "scheduled",
          scheduledAt: new Date(Date.now() + 3600_000).toISOString(),
          groupId: group.groupId,
        },
      });
      expect(data!.stats.total).toBe(total);
    }
  });
});
