// Keys by API (CONTRACT "Keys: scopes, expiry, test keys"): scopes decided by each operation's x-scope, expiry,
// a key's own keys no wider than itself, test keys making test keys, no key revoking itself.
import { describe, expect, it } from "vitest";
import { documentOperations, loadDocument } from "../../server/http/document.js";
import { problemOf, useTestServer, type TestAccount } from "../helpers/server.js";

const server = useTestServer();

async function makeKey(a: TestAccount, body: Record<string, unknown>) {
  const res = await a.request("POST", "/api/v1/keys", body);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { key: string; keyId: string; scope: string; test: boolean; expiresAt: string | null; name: string | null };
}

const as = (key: string, method: string, path: string, body?: unknown) =>
  fetch(`${server().baseUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

const TABLES = ["messages", "contacts", "groups", "webhooks", "numbers", "opt_outs", "campaigns", "api_keys", "account_settings"];

describe("keys by API", () => {
  it("makes, lists and revokes keys; a key cannot revoke itself (409 key_in_use)", async () => {
    const a = await server().account();
    const made = await makeKey(a, { name: "billing", scope: "send" });
    expect(made).toMatchObject({ name: "billing", scope: "send", test: false, expiresAt: null });
    const listed = (await (await a.request("GET", "/api/v1/keys")).json()) as { data: { keyId: string; lastUsedAt: string | null }[] };
    expect(listed.data.map((k) => k.keyId).sort()).toEqual([a.keyId, made.keyId].sort());
    const self = await a.request("DELETE", `/api/v1/keys/${a.keyId}`);
    expect(self.status).toBe(409);
    expect((await problemOf(self)).code).toBe("key_in_use");
    expect((await a.request("DELETE", `/api/v1/keys/${made.keyId}`)).status).toBe(204);
    expect((await as(made.key, "GET", "/api/v1/messages")).status).toBe(401);
    expect((await a.request("DELETE", "/api/v1/keys/AAAAAAAAAAAA")).status).toBe(404);
  });

  it("an expired key is 401; an expiry in the past is refused", async () => {
    const a = await server().account();
    const past = await a.request("POST", "/api/v1/keys", { expiresAt: new Date(Date.now() - 1000).toISOString() });
    expect(past.status).toBe(400);
    const made = await makeKey(a, { expiresAt: new Date(Date.now() + 3600_000).toISOString() });
    expect((await as(made.key, "GET", "/api/v1/key")).status).toBe(200);
    await server()
      .db("api_keys")
      .where({ key_id: made.keyId })
      .update({ expires_at: new Date(Date.now() - 1000) });
    const res = await as(made.key, "GET", "/api/v1/messages");
    expect(res.status).toBe(401);
    expect((await problemOf(res)).code).toBe("unauthorized");
  });

  it("a send key sends and cancels, and manages nothing else; it cannot make keys", async () => {
    const a = await server().account();
    const send = await makeKey(a, { scope: "send" });
    const scheduled = await as(send.key, "POST", "/api/v1/scheduler/schedule", {
      to: "+14155550123",
      from: "ACME",
      body: "hi",
      scheduledAt: new Date(Date.now() + 3600_000).toISOString(),
    });
    expect(scheduled.status).toBe(201);
    const { messageId } = (await scheduled.json()) as { messageId: string };
    expect((await as(send.key, "DELETE", `/api/v1/scheduler/cancel/${messageId}`)).status).toBe(200);
    for (const [method, path, body] of [
      ["POST", "/api/v1/contacts", { phone: "+14155550124" }],
      ["POST", "/api/v1/keys", { scope: "read" }],
      ["GET", "/api/v1/webhooks/00000000-0000-4000-8000-000000000001/secret", undefined],
    ] as const) {
      const res = await as(send.key, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect((await problemOf(res)).code).toBe("insufficient_scope");
    }
  });

  it("a read key changes nothing through any operation of the document (403 insufficient_scope)", async () => {
    const a = await server().account();
    const read = await makeKey(a, { scope: "read" });
    const db = server().db;
    const counts = async () =>
      Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, Number((await db(t).count({ n: "*" }))[0]!.n)])));
    const before = await counts();
    const document = loadDocument() as unknown as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { example?: unknown }> } }>>;
    };
    const uuid = "00000000-0000-4000-8000-000000000001";
    const writes = documentOperations(loadDocument()).filter(
      (op) =>
        op.path.startsWith("/api/v1/") &&
        !op.operation["x-public"] &&
        (op.operation["x-key-kinds"] ?? ["account"]).includes("account") &&
        op.operation["x-scope"] !== "read",
    );
    expect(writes.length).toBeGreaterThan(25);
    for (const op of writes) {
      const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
        name === "phone" ? "%2B14155550100" : name === "keyId" ? a.keyId : uuid,
      );
      const body =
        document.paths[op.path]![op.method]!.requestBody?.content["application/json"]?.example ??
        (op.method === "get" || op.method === "delete" ? undefined : {});
      const res = await as(read.key, op.method.toUpperCase(), path, body);
      expect(res.status, `${op.operationId}`).toBe(403);
      expect((await problemOf(res)).code).toBe("insufficient_scope");
    }
    expect(await counts()).toEqual(before);
    // What it may do, it does.
    expect((await as(read.key, "GET", "/api/v1/messages")).status).toBe(200);
  });

  it("a key makes keys no wider than itself; a test key makes only test keys", async () => {
    const a = await server().account();
    const test = await makeKey(a, { test: true, name: "sandbox" });
    expect(test).toMatchObject({ test: true, scope: "full" });
    const fromTest = await as(test.key, "POST", "/api/v1/keys", { test: false });
    expect(fromTest.status).toBe(201);
    expect(await fromTest.json()).toMatchObject({ test: true });
    expect(await (await as(test.key, "GET", "/api/v1/key")).json()).toMatchObject({ test: true, scope: "full", name: "sandbox" });
  });

  it("a key never outlives its maker: a later or missing expiry is the maker's, an earlier one is kept", async () => {
    const a = await server().account();
    const inOneHour = new Date(Date.now() + 3600_000).toISOString();
    const parent = await makeKey(a, { expiresAt: inOneHour });
    const asParent = async (body: object) => {
      const res = await as(parent.key, "POST", "/api/v1/keys", body);
      expect(res.status).toBe(201);
      return (await res.json()) as { key: string; keyId: string; expiresAt: string | null };
    };
    expect((await asParent({})).expiresAt).toBe(inOneHour);
    expect((await asParent({ expiresAt: null })).expiresAt).toBe(inOneHour);
    expect((await asParent({ expiresAt: new Date(Date.now() + 48 * 3600_000).toISOString() })).expiresAt).toBe(inOneHour);
    const earlier = new Date(Date.now() + 600_000).toISOString();
    expect((await asParent({ expiresAt: earlier })).expiresAt).toBe(earlier);
    // When the parent expires, its child stops with it.
    const child = await asParent({});
    expect((await as(child.key, "GET", "/api/v1/key")).status).toBe(200);
    await server()
      .db("api_keys")
      .whereIn("key_id", [parent.keyId, child.keyId])
      .update({ expires_at: new Date(Date.now() - 1000) });
    expect((await as(child.key, "GET", "/api/v1/messages")).status).toBe(401);
    // A key that does not expire makes keys that do not either, unless asked.
    expect((await makeKey(a, {})).expiresAt).toBeNull();
  });

  it("a test key sends, cancels its own test messages and reads; every other change is 403 test_key_not_allowed", async () => {
    const a = await server().account();
    const test = await makeKey(a, { test: true });
    const db = server().db;
    const counts = async () =>
      Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, Number((await db(t).count({ n: "*" }))[0]!.n)])));
    const document = loadDocument() as unknown as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { example?: unknown }> } }>>;
    };
    const uuid = "00000000-0000-4000-8000-000000000001";
    // Every operation of the account API that is neither a read nor marked x-test-key, from the document.
    const liveOnly = documentOperations(loadDocument()).filter(
      (op) =>
        op.path.startsWith("/api/v1/") &&
        !op.operation["x-public"] &&
        (op.operation["x-key-kinds"] ?? ["account"]).includes("account") &&
        op.operation["x-scope"] !== "read" &&
        op.operation["x-test-key"] !== true,
    );
    expect(liveOnly.map((op) => op.operationId)).toEqual(
      expect.arrayContaining(["OptOuts_remove", "Accounts_updateSettings", "Webhooks_create", "Numbers_create"]),
    );
    const before = await counts();
    for (const op of liveOnly) {
      const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
        name === "phone" ? "%2B14155550100" : name === "keyId" ? a.keyId : uuid,
      );
      const body =
        document.paths[op.path]![op.method]!.requestBody?.content["application/json"]?.example ??
        (op.method === "get" || op.method === "delete" ? undefined : {});
      const res = await as(test.key, op.method.toUpperCase(), path, body);
      expect(res.status, op.operationId).toBe(403);
      expect((await problemOf(res)).code, op.operationId).toBe("test_key_not_allowed");
    }
    expect(await counts()).toEqual(before);

    // A live message, batch and campaign are not a test key's to cancel; its own test ones are.
    const schedule = (key: string) =>
      as(key, "POST", "/api/v1/scheduler/schedule", {
        to: "+14155550123",
        from: "ACME",
        body: "hi",
        scheduledAt: new Date(Date.now() + 3600_000).toISOString(),
      });
    const live = (await (await schedule(a.key)).json()) as { messageId: string };
    const refused = await as(test.key, "DELETE", `/api/v1/scheduler/cancel/${live.messageId}`);
    expect(refused.status).toBe(403);
    expect((await problemOf(refused)).code).toBe("test_key_not_allowed");
    expect((await db("messages").where({ id: live.messageId }).first("status")).status).toBe("scheduled");
    const own = (await (await schedule(test.key)).json()) as { messageId: string };
    expect((await as(test.key, "DELETE", `/api/v1/scheduler/cancel/${own.messageId}`)).status).toBe(200);

    const batch = (await (
      await a.request("POST", "/api/v1/messages/batch", {
        messages: [{ to: "+14155550123", from: "ACME", body: "later", scheduledAt: new Date(Date.now() + 3600_000).toISOString() }],
      })
    ).json()) as { batchId: string };
    const batchRefused = await as(test.key, "POST", `/api/v1/batches/${batch.batchId}/cancel`);
    expect(batchRefused.status).toBe(403);
    expect((await problemOf(batchRefused)).code).toBe("test_key_not_allowed");

    const group = (await (await a.request("POST", "/api/v1/contacts/groups", { name: "testers" })).json()) as { groupId: string };
    await a.request("POST", "/api/v1/contacts", { phone: "+14155550124", groupId: group.groupId });
    const campaign = await a.request("POST", "/api/v1/campaigns", {
      name: "later",
      type: "scheduled",
      groupId: group.groupId,
      message: "later",
      from: "ACME",
      scheduledAt: new Date(Date.now() + 3600_000).toISOString(),
    });
    expect(campaign.status, await campaign.clone().text()).toBe(201);
    const { campaignId } = (await campaign.json()) as { campaignId: string };
    const campaignRefused = await as(test.key, "POST", `/api/v1/campaigns/${campaignId}/cancel`);
    expect(campaignRefused.status).toBe(403);
    expect((await problemOf(campaignRefused)).code).toBe("test_key_not_allowed");
    expect((await a.request("GET", `/api/v1/campaigns/${campaignId}`)).status).toBe(200);
    expect(((await (await a.request("GET", `/api/v1/campaigns/${campaignId}`)).json()) as { status: string }).status).not.toBe("cancelled");
  });
});
