// Message templates through the API (docs/API.md, "Templates"): made, listed, changed and deleted (never while
// a waiting message or an unfinished campaign uses one); sends, batch items and campaigns made from one with
// variables, the template's category as their default; every failure a clear problem.
import { beforeAll, describe, expect, it } from "vitest";
import { inHours, problemOf, useTestServer, type TestAccount } from "../helpers/server.js";

const server = useTestServer();
let a: TestAccount;
beforeAll(async () => {
  a = await server().account();
});

interface TemplateBody {
  templateId: string;
  name: string;
  body: string;
  category: string | null;
  variables: string[];
}

async function template(who: TestAccount, body: Record<string, unknown>): Promise<TemplateBody> {
  const res = await who.request("POST", "/api/v1/templates", body);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as TemplateBody;
}

describe("templates", () => {
  it("are made, listed, read and changed; a name is the account's once in any case; another account's is not found", async () => {
    const t = await template(a, {
      name: "Reminder",
      body: "Hi {{firstName}}, see you on {{date}} at {{ time }}.",
      category: "transactional",
    });
    expect(t).toMatchObject({ name: "Reminder", category: "transactional", variables: ["firstName", "date", "time"] });
    const taken = await a.request("POST", "/api/v1/templates", { name: "REMINDER", body: "x" });
    expect(taken.status).toBe(409);
    expect((await problemOf(taken)).code).toBe("template_exists");
    const listed = (await (await a.request("GET", "/api/v1/templates?limit=10")).json()) as { data: TemplateBody[] };
    expect(listed.data.map((x) => x.templateId)).toContain(t.templateId);
    const changed = await a.request("PATCH", `/api/v1/templates/${t.templateId}`, { body: "See you on {{date}}.", category: null });
    expect(await changed.json()).toMatchObject({ body: "See you on {{date}}.", category: null, variables: ["date"] });
    const other = await server().account();
    expect((await other.request("GET", `/api/v1/templates/${t.templateId}`)).status).toBe(404);
    expect((await other.request("DELETE", `/api/v1/templates/${t.templateId}`)).status).toBe(404);
  });

  it("make a send's text from its variables, with the template's category; a missing variable or a wrong use is a clear problem", async () => {
    const t = await template(a, { name: "Code", body: "Your code is {{code}}. It expires in {{minutes}} minutes.", category: "marketing" });
    const res = await a.request("POST", "/api/v1/messages", {
      to: "+14155550601",
      from: "ACME",
      templateId: t.templateId,
      variables: { code: "482913", minutes: "10" },
      scheduledAt: inHours(24),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const { messageId } = (await res.json()) as { messageId: string };
    const message = (await (await a.request("GET", `/api/v1/messages/${messageId}`)).json()) as { body: string; category: string };
    expect(message).toMatchObject({ body: "Your code is 482913. It expires in 10 minutes.", category: "marketing" });

    const send = (extra: Record<string, unknown>) => a.request("POST", "/api/v1/messages", { to: "+14155550602", from: "ACME", ...extra });
    const missing = await send({ templateId: t.templateId, variables: { code: "1" } });
    expect(missing.status).toBe(400);
    expect((await problemOf(missing)).errors?.[0]?.path).toBe("/body/variables/minutes");
    const both = await send({ body: "x", templateId: t.templateId });
    expect(both.status).toBe(400);
    const neither = await send({});
    expect(neither.status).toBe(400);
    const unknown = await send({ templateId: "0b7c3a53-5a5e-4a54-9a7e-0c3b8a6f6e21", variables: {} });
    expect(unknown.status).toBe(422);
    expect((await problemOf(unknown)).code).toBe("template_not_found");
    const tooLong = await send({ templateId: t.templateId, variables: { code: "x".repeat(501), minutes: "1" } });
    expect((await problemOf(tooLong)).errors?.[0]?.path).toBe("/body/variables/code");
    // Variables are the request's own: `{{constructor}}` is missing, never Object's function; no message is empty.
    const proto = await template(a, { name: "Proto", body: "{{constructor}}" });
    const inherited = await send({ templateId: proto.templateId, variables: {} });
    expect(inherited.status).toBe(400);
    expect((await problemOf(inherited)).errors?.[0]?.path).toBe("/body/variables/constructor");
    const empty = await send({ templateId: proto.templateId, variables: { constructor: " " } });
    expect(empty.status).toBe(400);
    expect((await problemOf(empty)).errors?.[0]?.path).toBe("/body/variables");
  });

  it("make a batch's items, each item's problem its own", async () => {
    const t = await template(a, { name: "Shipped", body: "Order {{order}} has shipped." });
    const res = await a.request("POST", "/api/v1/messages/batch", {
      messages: [
        { to: "+14155550611", from: "ACME", templateId: t.templateId, variables: { order: "A-1" }, scheduledAt: inHours(24) },
        { to: "+14155550612", from: "ACME", templateId: t.templateId, variables: {}, scheduledAt: inHours(24) },
        { to: "+14155550613", from: "ACME", body: "Plain text", scheduledAt: inHours(24) },
      ],
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const result = (await res.json()) as { accepted: number; results: { messageId?: string; error?: { code: string; path: string } }[] };
    expect(result.accepted).toBe(2);
    expect(result.results[1]!.error).toMatchObject({ code: "validation_failed", path: "/body/messages/1/variables/order" });
    const first = (await (await a.request("GET", `/api/v1/messages/${result.results[0]!.messageId}`)).json()) as { body: string };
    expect(first.body).toBe("Order A-1 has shipped.");
  });

  it("make a campaign's message, the contact's own placeholders left for each contact", async () => {
    const t = await template(a, { name: "Sale", body: "Hi {{firstName}}, {{discount}} off today, {{custom.city}} store." });
    const { data: group } = await a.client.POST("/api/v1/contacts/groups", { body: { name: "sale" } });
    await a.client.POST("/api/v1/contacts", {
      body: { phone: "+14155550621", firstName: "Ada", customFields: { city: "London" }, groupId: group!.groupId },
    });
    const res = await a.request("POST", "/api/v1/campaigns", {
      name: "Sale",
      type: "scheduled",
      scheduledAt: inHours(48),
      groupId: group!.groupId,
      templateId: t.templateId,
      variables: { discount: "30%" },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    expect(await res.json()).toMatchObject({ message: "Hi {{firstName}}, 30% off today, {{custom.city}} store.", stats: { total: 1 } });
  });

  it("cannot be deleted while a waiting message or an unfinished campaign uses it", async () => {
    const t = await template(a, { name: "In use", body: "Hello {{name}}" });
    const res = await a.request("POST", "/api/v1/messages", {
      to: "+14155550631",
      from: "ACME",
      templateId: t.templateId,
      variables: { name: "Ada" },
      scheduledAt: inHours(24),
    });
    const { messageId } = (await res.json()) as { messageId: string };
    const refused = await a.request("DELETE", `/api/v1/templates/${t.templateId}`);
    expect(refused.status).toBe(409);
    expect((await problemOf(refused)).code).toBe("template_in_use");
    expect((await a.request("DELETE", `/api/v1/scheduler/cancel/${messageId}`)).status).toBe(200);
    expect((await a.request("DELETE", `/api/v1/templates/${t.templateId}`)).status).toBe(204);
    expect((await a.request("GET", `/api/v1/templates/${t.templateId}`)).status).toBe(404);
  });
});
