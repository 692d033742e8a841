// Keys by API (CONTRACT "Keys: scopes, expiry, test keys"): scopes decided by each operation's x-scope, expiry,
// a key's own keys no wider than itself, test keys making test keys, no key revoking itself. And (CONTRACT
// "Changed (turn 5)") a key is never more than the person who made it: a key made with a session does, operation
// by operation of the document, exactly what its maker's current role allows, is capped when they are demoted,
// and revoked (audited) when they are removed; `createdBy` names the maker.
import { beforeAll, describe, expect, it } from "vitest";
import { documentOperations, loadDocument, type DocumentOperation } from "../../server/http/document.js";
import { people, uniqueEmail } from "../helpers/people.js";
import { problemOf, scheduleBody, useTestServer, type TestAccount, type TestOperator } from "../helpers/server.js";

const server = useTestServer();
let op: TestOperator;
beforeAll(async () => {
  op = await server().operator();
});
const { userOf, signIn } = people(server, () => op);

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

/** A person of account `a` with `role`, signed in, and the key they made with their session. */
async function personWithKey(a: TestAccount, role: string, body: Record<string, unknown> = { scope: "full" }) {
  const email = uniqueEmail(role);
  const { userId } = await userOf(a, email, role);
  const person = await signIn(email);
  const res = await person.request("POST", "/api/v1/keys", body);
  expect(res.status, await res.clone().text()).toBe(201);
  const made = (await res.json()) as { key: string; keyId: string; createdBy: { userId: string; email: string } | null };
  return { userId, email: email.toLowerCase(), person, ...made };
}

const ROLE_SCOPE: Record<string, string> = { owner: "full", admin: "full", developer: "full", viewer: "read" };
const COVERS: Record<string, string[]> = { full: ["full", "send", "read"], send: ["send", "read"], read: ["read"] };

/** Whether the document lets a person of `role` call the operation with their session: `x-roles`, and their role's scope. */
const roleAllows = (role: string, o: DocumentOperation) =>
  (!o["x-roles"] || o["x-roles"].includes(role)) && (!o["x-scope"] || COVERS[ROLE_SCOPE[role]!]!.includes(o["x-scope"]));

/** The refusals of the key gate: a reached handler answers anything else. */
const GATE_CODES = ["unauthorized", "wrong_key_kind", "insufficient_scope", "insufficient_role", "test_key_not_allowed"];

/** Row counts a reached handler of a change would move. */
const CHANGED = ["messages", "contacts", "groups", "webhooks", "numbers", "opt_outs", "campaigns", "api_keys", "users", "user_invitations"];

/**
 * Every operation of the account API, from the document, called with a full `key` made by a person who is now
 * `role`: refused 403 `insufficient_role` exactly where the role does not allow it, and past the gate wherever
 * it does. Nothing changes either way: ids are unknown and every body is malformed JSON (400 after the gate).
 */
async function expectKeyDoesWhatRoleAllows(a: TestAccount, key: string, role: string) {
  const db = server().db;
  const counts = async () => ({
    ...Object.fromEntries(await Promise.all(CHANGED.map(async (t) => [t, Number((await db(t).count({ n: "*" }))[0]!.n)]))),
    activeKeys: Number((await db("api_keys").whereNull("revoked_at").count({ n: "*" }))[0]!.n),
  });
  const before = await counts();
  const uuid = "00000000-0000-4000-8000-000000000001";
  const operations = documentOperations(loadDocument()).filter(
    (o) => o.path.startsWith("/api/v1/") && !o.operation["x-public"] && (o.operation["x-key-kinds"] ?? ["account"]).includes("account"),
  );
  expect(operations.length).toBeGreaterThan(60);
  let refused = 0;
  for (const o of operations) {
    const method = o.method.toUpperCase();
    // No key of the account is named: a key allowed to revoke one would (a developer's key may revoke the account's keys).
    const path = o.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
      name === "phone" ? "%2B14155550100" : name === "keyId" ? "AAAAAAAAAAAA" : uuid,
    );
    const hasBody = method !== "GET" && method !== "DELETE";
    const res = await fetch(server().baseUrl + path, {
      method,
      headers: { Authorization: `Bearer ${key}`, ...(hasBody ? { "Content-Type": "application/json" } : {}) },
      body: hasBody ? "{" : undefined,
    });
    const label = `${role}'s key: ${o.operationId} ${method} ${path} → ${res.status}`;
    const code = res.status === 401 || res.status === 403 ? (await problemOf(res)).code : undefined;
    if (roleAllows(role, o.operation)) {
      expect(GATE_CODES, label).not.toContain(code);
    } else {
      expect(res.status, label).toBe(403);
      expect(code, label).toBe("insufficient_role");
      refused++;
    }
    if (!res.bodyUsed) await res.arrayBuffer();
  }
  expect(await counts()).toEqual(before);
  return refused;
}

describe("a key is never more than the person who made it", () => {
  it("the reported attack: a developer's full key cannot make anyone admin nor invite one; demoted, it only reads; removed, it and its keys are revoked (audited)", async () => {
    const a = await server().account();
    const dev = await personWithKey(a, "developer");
    expect(dev.createdBy).toEqual({ userId: dev.userId, email: dev.email });
    const asDev = (method: string, path: string, body?: unknown) => as(dev.key, method, path, body);

    // The escalation of the report, each step refused at the gate.
    for (const [method, path, body] of [
      ["PATCH", `/api/v1/users/${dev.userId}`, { role: "admin" }],
      ["POST", "/api/v1/users/invite", { email: uniqueEmail("accomplice"), role: "admin" }],
      ["DELETE", `/api/v1/users/${dev.userId}`, undefined],
    ] as const) {
      const res = await asDev(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect((await problemOf(res)).code, `${method} ${path}`).toBe("insufficient_role");
    }
    const stored = await server().db("users").where({ account_id: a.accountId }).select("id", "role");
    expect(stored).toEqual([{ id: dev.userId, role: "developer" }]);
    // What a developer may do, the key does.
    expect((await asDev("POST", "/api/v1/scheduler/schedule", scheduleBody())).status).toBe(201);
    const child = await asDev("POST", "/api/v1/keys", { scope: "full", name: "child" });
    expect(child.status).toBe(201);
    const childKey = (await child.json()) as { key: string; keyId: string; createdBy: unknown };
    expect(childKey.createdBy).toEqual({ userId: dev.userId, email: dev.email });
    // The child is no more than the developer either.
    const childInvite = await as(childKey.key, "POST", "/api/v1/users/invite", { email: uniqueEmail("x"), role: "admin" });
    expect(childInvite.status).toBe(403);
    expect((await problemOf(childInvite)).code).toBe("insufficient_role");

    // Demoted to viewer: at once, the key only reads.
    expect((await a.request("PATCH", `/api/v1/users/${dev.userId}`, { role: "viewer" })).status).toBe(200);
    for (const key of [dev.key, childKey.key]) {
      for (const [method, path, body] of [
        ["POST", "/api/v1/scheduler/schedule", scheduleBody()],
        ["POST", "/api/v1/keys", { scope: "read" }],
        ["POST", "/api/v1/contacts", { phone: "+14155550124" }],
      ] as const) {
        const res = await as(key, method, path, body);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect((await problemOf(res)).code, `${method} ${path}`).toBe("insufficient_role");
      }
      expect((await as(key, "GET", "/api/v1/messages")).status).toBe(200);
    }
    // Promoted back, the key does what a developer does again: the role is read on every request.
    expect((await a.request("PATCH", `/api/v1/users/${dev.userId}`, { role: "developer" })).status).toBe(200);
    expect((await asDev("POST", "/api/v1/scheduler/schedule", scheduleBody())).status).toBe(201);

    // Removed: every key they made, directly or through a key, is revoked, and each revocation audited.
    const removed = await a.request("DELETE", `/api/v1/users/${dev.userId}`);
    expect(removed.status).toBe(204);
    for (const key of [dev.key, childKey.key]) {
      for (const [method, path, body] of [
        ["GET", "/api/v1/messages", undefined],
        ["POST", "/api/v1/scheduler/schedule", scheduleBody()],
        ["POST", "/api/v1/keys", { scope: "full" }],
      ] as const) {
        const res = await as(key, method, path, body);
        expect(res.status, `${method} ${path}`).toBe(401);
        expect((await problemOf(res)).code).toBe("unauthorized");
      }
    }
    const listed = (await (await a.request("GET", "/api/v1/keys")).json()) as { data: { keyId: string }[] };
    expect(listed.data.map((k) => k.keyId)).toEqual([a.keyId]);
    const audit = (await (await a.request("GET", "/api/v1/audit-events?action=Keys_revoke")).json()) as {
      data: { resourceId: string; actor: { type: string; keyId: string }; accountId: string; status: number }[];
    };
    expect(audit.data.map((e) => e.resourceId).sort()).toEqual([dev.keyId, childKey.keyId].sort());
    for (const e of audit.data)
      expect(e).toMatchObject({ actor: { type: "account", keyId: a.keyId }, accountId: a.accountId, status: 204 });
  });

  it("a key cannot be made with more than its maker may have: a viewer makes none, a demoted maker's key makes none", async () => {
    const a = await server().account();
    const email = uniqueEmail("viewer");
    await userOf(a, email, "viewer");
    const viewer = await signIn(email);
    const refused = await viewer.request("POST", "/api/v1/keys", { scope: "read" });
    expect(refused.status).toBe(403);
    expect((await problemOf(refused)).code).toBe("insufficient_scope");
    // A developer's `send` key makes no `full` key.
    const dev = await personWithKey(a, "developer", { scope: "send" });
    const wider = await as(dev.key, "POST", "/api/v1/keys", { scope: "full" });
    expect(wider.status).toBe(403);
    // A developer's full key, its maker demoted to viewer, makes no key at all, not even a `read` one.
    const demoted = await personWithKey(a, "developer");
    expect((await a.request("PATCH", `/api/v1/users/${demoted.userId}`, { role: "viewer" })).status).toBe(200);
    const fromDemoted = await as(demoted.key, "POST", "/api/v1/keys", { scope: "read" });
    expect(fromDemoted.status).toBe(403);
    expect((await problemOf(fromDemoted)).code).toBe("insufficient_role");
    expect(Number((await server().db("api_keys").where({ account_id: a.accountId }).count({ n: "*" }))[0]!.n)).toBe(3);
  });

  it("createdBy in GET /keys: a session's key names its person, a key made by it inherits them, the operator's, the command line's and their keys' are null", async () => {
    const a = await server().account();
    const dev = await personWithKey(a, "developer", { scope: "full", name: "by a session" });
    const inherited = (await (await as(dev.key, "POST", "/api/v1/keys", { name: "by the session's key" })).json()) as {
      key: string;
      keyId: string;
      createdBy: unknown;
    };
    const byOperator = await op.request("POST", `/api/v1/accounts/${a.accountId}/keys`, { name: "by the operator" });
    expect(byOperator.status).toBe(201);
    const operatorMade = (await byOperator.json()) as { keyId: string; key: string; createdBy: unknown };
    const byCliKey = (await (await a.request("POST", "/api/v1/keys", { name: "by the cli's key" })).json()) as {
      keyId: string;
      createdBy: unknown;
    };
    const byOperatorKey = (await (await as(operatorMade.key, "POST", "/api/v1/keys", { name: "by the operator's key" })).json()) as {
      keyId: string;
    };
    const maker = { userId: dev.userId, email: dev.email };
    expect(inherited.createdBy).toEqual(maker);
    expect(operatorMade.createdBy).toBeNull();
    expect(byCliKey.createdBy).toBeNull();
    const expected = {
      [dev.keyId]: maker,
      [inherited.keyId]: maker,
      [operatorMade.keyId]: null,
      [byCliKey.keyId]: null,
      [byOperatorKey.keyId]: null,
      [a.keyId]: null,
    };
    for (const list of [
      await a.request("GET", "/api/v1/keys"),
      await dev.person.request("GET", "/api/v1/keys"),
      await op.request("GET", `/api/v1/accounts/${a.accountId}/keys`),
    ]) {
      expect(list.status).toBe(200);
      const { data } = (await list.json()) as { data: { keyId: string; createdBy: unknown }[] };
      expect(Object.fromEntries(data.map((k) => [k.keyId, k.createdBy]))).toEqual(expected);
    }
    expect(await (await as(inherited.key, "GET", "/api/v1/key")).json()).toMatchObject({ createdBy: maker });
  });

  it("every operation of the document: a key made by an owner, an admin, a developer or a (demoted) viewer does exactly what that role allows", async () => {
    const a = await server().account();
    // A second owner keeps the account's last-owner rule out of the way; the makers sign in and make full keys.
    const owner = await personWithKey(a, "owner");
    const admin = await personWithKey(a, "admin");
    const dev = await personWithKey(a, "developer");
    // A viewer makes no key (above): a viewer's key is one made before its maker was demoted.
    const demoted = await personWithKey(a, "developer");
    expect((await owner.person.request("PATCH", `/api/v1/users/${demoted.userId}`, { role: "viewer" })).status).toBe(200);
    expect(await expectKeyDoesWhatRoleAllows(a, owner.key, "owner")).toBe(0);
    const adminRefused = await expectKeyDoesWhatRoleAllows(a, admin.key, "admin");
    const devRefused = await expectKeyDoesWhatRoleAllows(a, dev.key, "developer");
    const viewerRefused = await expectKeyDoesWhatRoleAllows(a, demoted.key, "viewer");
    // The developer's key is refused the user management an admin's key is allowed, the viewer's every change besides.
    expect(devRefused).toBeGreaterThan(adminRefused);
    expect(devRefused).toBeGreaterThanOrEqual(3);
    expect(viewerRefused).toBeGreaterThan(devRefused + 25);
    // Every operation of the document several times over: its own bound, far above what it takes on a busy machine.
  }, 180_000);

  it("every operation of the document, before and after a demotion, and after a removal (401 with the revoked key)", async () => {
    const a = await server().account();
    const dev = await personWithKey(a, "developer");
    await expectKeyDoesWhatRoleAllows(a, dev.key, "developer");
    expect((await a.request("PATCH", `/api/v1/users/${dev.userId}`, { role: "viewer" })).status).toBe(200);
    await expectKeyDoesWhatRoleAllows(a, dev.key, "viewer");
    expect((await a.request("PATCH", `/api/v1/users/${dev.userId}`, { role: "admin" })).status).toBe(200);
    await expectKeyDoesWhatRoleAllows(a, dev.key, "admin");
    expect((await a.request("DELETE", `/api/v1/users/${dev.userId}`)).status).toBe(204);
    const operations = documentOperations(loadDocument()).filter((o) => o.path.startsWith("/api/v1/") && !o.operation["x-public"]);
    const uuid = "00000000-0000-4000-8000-000000000001";
    for (const o of operations) {
      const method = o.method.toUpperCase();
      const path = o.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
        name === "phone" ? "%2B14155550100" : name === "keyId" ? a.keyId : name === "accountId" ? a.accountId : uuid,
      );
      const res = await as(dev.key, method, path, method === "GET" || method === "DELETE" ? undefined : {});
      expect(res.status, `${o.operationId} ${method} ${path}`).toBe(401);
      expect((await problemOf(res)).code).toBe("unauthorized");
    }
    // Every operation of the document several times over: its own bound, far above what it takes on a busy machine.
  }, 180_000);
});
