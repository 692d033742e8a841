import { describe, expect, it } from "vitest";
import { inHours, problemOf, useTestServer } from "../helpers/server.js";

const server = useTestServer();

describe("the opt-out list", () => {
  it("PUT adds (201, then 200 with the same entry), GET reads, DELETE removes (204, then 404)", async () => {
    const a = await server().account();
    const created = await a.request("PUT", "/api/v1/opt-outs/%2B14155550170");
    expect(created.status).toBe(201);
    const entry = (await created.json()) as Record<string, unknown>;
    expect(entry).toMatchObject({ phone: "+14155550170", source: "api", keyword: null });
    const again = await a.request("PUT", "/api/v1/opt-outs/+14155550170");
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(entry);
    // Bare digits and the percent-encoded + name the same entry.
    expect(await (await a.request("GET", "/api/v1/opt-outs/14155550170")).json()).toEqual(entry);
    expect((await a.request("DELETE", "/api/v1/opt-outs/14155550170")).status).toBe(204);
    expect((await a.request("GET", "/api/v1/opt-outs/%2B14155550170")).status).toBe(404);
    const gone = await a.request("DELETE", "/api/v1/opt-outs/%2B14155550170");
    expect(gone.status).toBe(404);
    expect((await problemOf(gone)).code).toBe("not_found");
  });

  it("answers 400 for a path that is not a phone number", async () => {
    const a = await server().account();
    for (const phone of ["hello", "123", "%2B999123456789"]) {
      const res = await a.request("PUT", `/api/v1/opt-outs/${phone}`);
      expect(res.status, phone).toBe(400);
      expect((await problemOf(res)).errors?.[0]?.path).toBe("/path/phone");
    }
  });

  it("lists newest first with cursor pages; each account has its own list", async () => {
    const a = await server().account();
    const b = await server().account();
    for (const phone of ["14155550171", "14155550172", "14155550173"]) {
      expect((await a.request("PUT", `/api/v1/opt-outs/${phone}`)).status).toBe(201);
    }
    const { data: page1 } = await a.client.GET("/api/v1/opt-outs", { params: { query: { limit: 2 } } });
    expect(page1!.data.map((o) => o.phone)).toEqual(["+14155550173", "+14155550172"]);
    const { data: page2 } = await a.client.GET("/api/v1/opt-outs", { params: { query: { limit: 2, cursor: page1!.nextCursor! } } });
    expect(page2!.data.map((o) => o.phone)).toEqual(["+14155550171"]);
    expect(page2!.nextCursor).toBeNull();
    expect((await b.client.GET("/api/v1/opt-outs")).data!.data).toEqual([]);
    expect((await b.request("GET", "/api/v1/opt-outs/14155550171")).status).toBe(404);
    expect((await b.request("DELETE", "/api/v1/opt-outs/14155550171")).status).toBe(404);
    // B may schedule to a number only A's list has.
    const scheduled = await b.request("POST", "/api/v1/scheduler/schedule", {
      to: "+14155550171",
      body: "hi",
      from: "ACME",
      scheduledAt: inHours(1),
    });
    expect(scheduled.status).toBe(201);
  });

  it("contacts show optedOut (read-only); deleting a contact keeps its opt-out", async () => {
    const a = await server().account();
    const { data: contact } = await a.client.POST("/api/v1/contacts", { body: { phone: "+14155550174" } });
    expect(contact!.optedOut).toBe(false);
    await a.request("PUT", "/api/v1/opt-outs/14155550174");
    const { data: got } = await a.client.GET("/api/v1/contacts/{contactId}", { params: { path: { contactId: contact!.contactId } } });
    expect(got!.optedOut).toBe(true);
    const { data: list } = await a.client.GET("/api/v1/contacts");
    expect(list!.data.map((c) => [c.phone, c.optedOut])).toEqual([["+14155550174", true]]);
    const imported = await a.request("POST", "/api/v1/contacts/import", {
      contacts: [{ phone: "+14155550174" }, { phone: "+14155550175" }],
    });
    expect(((await imported.json()) as { contacts: { optedOut: boolean }[] }).contacts.map((c) => c.optedOut)).toEqual([false]);
    const readOnly = await a.request("PATCH", `/api/v1/contacts/${contact!.contactId}`, { optedOut: false });
    expect(readOnly.status).toBe(400);
    expect((await a.request("DELETE", `/api/v1/contacts/${contact!.contactId}`)).status).toBe(204);
    expect((await a.request("GET", "/api/v1/opt-outs/14155550174")).status).toBe(200);
    const { data: again } = await a.client.POST("/api/v1/contacts", { body: { phone: "+14155550174" } });
    expect(again!.optedOut).toBe(true);
  });

  it("scheduling to an opted-out number is a 422 recipient_opted_out and stores nothing", async () => {
    const a = await server().account();
    await a.request("PUT", "/api/v1/opt-outs/14155550176");
    const res = await a.request("POST", "/api/v1/scheduler/schedule", {
      to: "+1 415 555 0176",
      body: "hi",
      from: "ACME",
      scheduledAt: inHours(1),
    });
    expect(res.status).toBe(422);
    expect((await problemOf(res)).code).toBe("recipient_opted_out");
    expect((await a.client.GET("/api/v1/messages")).data!.data).toEqual([]);
  });
});
