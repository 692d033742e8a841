// Generated from the OpenAPI document: every operation with a path identifier, called with account B's key
// on account A's resource, answers 404 not_found, and A's resources are unchanged afterwards. A new
// operation is covered without editing this test as long as its path parameters are named as below.
import { describe, expect, it } from "vitest";
import { documentOperations, loadDocument } from "../../server/http/document.js";
import { requestExample } from "../helpers/examples.js";
import { people, uniqueEmail } from "../helpers/people.js";
import { inHours, useTestServer, type TestAccount } from "../helpers/server.js";

const server = useTestServer();

async function snapshot(a: TestAccount, ids: Record<string, string>) {
  const get = async (path: string) => (await a.request("GET", path)).json();
  return {
    message: await get(`/api/v1/messages/${ids.messageId}`),
    group: await get(`/api/v1/contacts/groups/${ids.groupId}`),
    contact: await get(`/api/v1/contacts/${ids.contactId}`),
    webhook: await get(`/api/v1/webhooks/${ids.webhookId}`),
    secret: await get(`/api/v1/webhooks/${ids.webhookId}/secret`),
    campaign: await get(`/api/v1/campaigns/${ids.campaignId}`),
    number: await get(`/api/v1/numbers/${ids.numberId}`),
    optOut: await get(`/api/v1/opt-outs/${ids.phone}`),
    batch: await get(`/api/v1/messages?batchId=${ids.batchId}`),
    pool: await get(`/api/v1/sender-pools/${ids.senderPoolId}`),
    users: await get("/api/v1/users"),
    conversations: await get("/api/v1/conversations"),
  };
}

describe("tenant isolation", () => {
  it("answers 404 to account B on every operation that names one of account A's resources", async () => {
    const a = await server().account();
    const b = await server().account();
    const { data: group } = await a.client.POST("/api/v1/contacts/groups", { body: { name: "A's group" } });
    const { data: contact } = await a.client.POST("/api/v1/contacts", { body: { phone: "+14155550150", groupId: group!.groupId } });
    const { data: message } = await a.client.POST("/api/v1/scheduler/schedule", {
      body: { to: "+14155550150", body: "private", from: "ACME", scheduledAt: inHours(5) },
    });
    const { data: number } = await a.client.POST("/api/v1/numbers", { body: { phoneNumber: "+14155550160" } });
    const { data: webhook } = await a.client.POST("/api/v1/webhooks", { body: { name: "A", url: "http://127.0.0.1:9/a" } });
    const { data: pool } = await a.client.POST("/api/v1/sender-pools", { body: { name: "A's pool", senders: ["ACME"] } });
    const { data: user } = await a.client.POST("/api/v1/users/invite", { body: { email: `a-${a.accountId}@example.com`, role: "viewer" } });
    const { data: batch } = await a.client.POST("/api/v1/messages/batch", {
      body: { messages: [{ to: "+14155550151", body: "private batch", from: "ACME", scheduledAt: inHours(5) }] },
    });
    // Campaign creation arrives with the delivery engine; until then A's campaign is stored directly.
    const [campaign] = await server()
      .db("campaigns")
      .insert({
        account_id: a.accountId,
        name: "A",
        message: "m",
        type: "instant",
        sender: "ACME",
        group_id: group!.groupId,
        status: "sending",
      })
      .returning("id");
    // A person of each account, signed in: A's session is a resource B's person must not end (a session's
    // operations take a session, not a key).
    const op = await server().operator();
    const persons = people(server, () => op);
    const aPerson = uniqueEmail("tenant-a");
    const bPerson = uniqueEmail("tenant-b");
    await persons.userOf(a, aPerson, "viewer");
    await persons.userOf(b, bPerson, "viewer");
    const aSession = await persons.signIn(aPerson);
    const bSession = await persons.signIn(bPerson);
    const aSessionId = ((await (await aSession.request("GET", "/api/v1/session")).json()) as { sessionId: string }).sessionId;
    const ids: Record<string, string> = {
      sessionId: aSessionId,
      messageId: message!.messageId,
      groupId: group!.groupId,
      contactId: contact!.contactId,
      webhookId: webhook!.webhookId,
      campaignId: campaign.id,
      numberId: number!.numberId,
      phone: "14155550161",
      deliveryId: "4f0c7d3e-2b1a-4c5d-8e9f-0a1b2c3d4e5f",
      keyId: a.keyId,
      batchId: batch!.batchId,
      senderPoolId: pool!.senderPoolId,
      userId: user!.userId,
      templateId: ((await (await a.request("POST", "/api/v1/templates", { name: "mine", body: "Hello" })).json()) as { templateId: string })
        .templateId,
    };
    // A's thread with that number (unread), which B's read mark must not touch.
    expect((await a.request("POST", "/api/v1/simulator/inbound", { from: "+14155550161", to: "+14155550160", body: "hello" })).status).toBe(
      202,
    );
    expect((await a.request("PUT", `/api/v1/opt-outs/${ids.phone}`)).status).toBe(201);
    const before = await snapshot(a, ids);
    expect((before.conversations as { data: { unread: number }[] }).data).toEqual([expect.objectContaining({ unread: 1 })]);

    // The account API's operations (the operator's take operator keys: test/api/key-kinds.test.ts).
    const operations = documentOperations(loadDocument()).filter(
      (op) => op.path.includes("{") && (op.operation["x-key-kinds"] ?? ["account"]).includes("account"),
    );
    expect(operations.length).toBeGreaterThan(10);
    for (const op of operations) {
      const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
        if (!ids[name]) throw new Error(`tenant isolation test has no resource for path parameter ${name} (${op.operationId})`);
        return ids[name];
      });
      // The example as a partner would send it today (its dates moved to this test's clock: a date fixed in
      // the past would be refused with 422 before the 404 this checks).
      const body = requestExample(op.path, op.method);
      // The opt-out list is per account: B's PUT puts the number on B's own list (checked after the loop).
      if (op.operationId === "OptOuts_add") continue;
      const caller = op.operationId === "Sessions_end" ? bSession : b;
      const res = await caller.request(op.method.toUpperCase(), path, body);
      expect(res.status, `${op.operationId} ${op.method.toUpperCase()} ${path}`).toBe(404);
      expect(((await res.json()) as { code: string }).code).toBe("not_found");
    }

    expect((await b.request("PUT", `/api/v1/opt-outs/${ids.phone}`)).status).toBe(201);
    expect(await snapshot(a, ids)).toEqual(before);
    const { data: bMessages } = await b.client.GET("/api/v1/messages");
    expect(bMessages!.data).toEqual([]);
    const { data: bGroups } = await b.client.GET("/api/v1/contacts/groups/all");
    expect(bGroups!.data).toEqual([]);
    const { data: bContacts } = await b.client.GET("/api/v1/contacts", { params: { query: { groupId: group!.groupId } } });
    expect(bContacts!.data).toEqual([]);
    const { data: bWebhooks } = await b.client.GET("/api/v1/webhooks");
    expect(bWebhooks!.data).toEqual([]);
    const { data: bNumbers } = await b.client.GET("/api/v1/numbers");
    expect(bNumbers!.data).toEqual([]);
    // An inbound message to A's number is A's alone.
    const { data: inbound } = await a.client.POST("/api/v1/simulator/inbound", {
      body: { from: "+14155550162", to: "+14155550160", body: "hi A" },
    });
    expect((await b.request("GET", `/api/v1/messages/${inbound!.messageId}`)).status).toBe(404);
    expect((await b.client.GET("/api/v1/messages", { params: { query: { phone: "+14155550162" } } })).data!.data).toEqual([]);
    expect((await b.client.GET("/api/v1/opt-outs")).data!.data.map((o) => o.phone)).toEqual(["+14155550161"]);
  });
});
