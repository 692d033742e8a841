// Access whatever the spelling of a path (CONTRACT "Changed (turn 4)"): generated from the published document,
// every operation is called with its path as the document spells it and in every other spelling a router
// might take (upper case, mixed case, the base path's case alone, a trailing slash, a doubled slash, a
// percent-encoded letter), by every kind of caller. The document's own spelling is judged by the key gate
// (403 for a key of the wrong kind or too narrow a scope); every other spelling is 404 for everyone, before
// authentication, and changes nothing. Once, a gate that matched paths case-sensitively beside a router that
// did not let any account key reach the whole operator API. Keys made by people (with a session) are callers
// too: each is judged by its maker's current role besides its own scope (CONTRACT "Changed (turn 5)").
import { describe, expect, it } from "vitest";
import { isAudited } from "../../server/http/audit.js";
import { documentOperations, loadDocument, type DocumentOperation } from "../../server/http/document.js";
import { problemOf, useTestServer } from "../helpers/server.js";

const server = useTestServer();

/** Tables whose row counts any reached handler of a change would move. */
const TABLES = [
  "accounts",
  "api_keys",
  "messages",
  "contacts",
  "groups",
  "webhooks",
  "numbers",
  "opt_outs",
  "campaigns",
  "connectors",
  "audit_events",
  "sender_pools",
  "users",
  "user_sessions",
];

const mixedCase = (s: string) => [...s].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join("");

/** Other spellings of a document path (its parameters already filled): none of them is an operation. */
function otherSpellings(template: string, fill: (t: string) => string): string[] {
  const literalsOnly = (transform: (s: string) => string) =>
    fill(
      template
        .split(/(\{\w+\})/)
        .map((part) => (part.startsWith("{") ? part : transform(part)))
        .join(""),
    );
  const exact = fill(template);
  return [
    literalsOnly((s) => s.toUpperCase()),
    literalsOnly(mixedCase),
    exact.replace("/api/v1/", "/API/V1/"),
    exact.replace("/api/v1/", "/Api/v1/"),
    `${exact}/`,
    exact.replace("/api/v1/", "/api/v1//"),
    exact.replace(/\/api\/v1\/([a-z])/, (_m, c: string) => `/api/v1/%${c.charCodeAt(0).toString(16)}`),
  ].filter((p) => p !== exact);
}

interface Caller {
  name: string;
  key?: string;
  /** A person's session instead of a key: its cookie and CSRF token, and its user's role. */
  session?: { cookie: string; csrf: string; role: string };
  kind?: "account" | "operator";
  scope?: "full" | "send" | "read";
  test?: boolean;
  /** A key made with a person's session: its maker's role now, which the key never exceeds. */
  maker?: "owner" | "admin" | "developer" | "viewer";
}

const ROLE_SCOPE = { owner: "full", admin: "full", developer: "full", viewer: "read" } as const;

const COVERS = { full: ["full", "send", "read"], send: ["send", "read"], read: ["read"] } as const;

/** The code the key gate answers this caller on this operation, or null when the gate lets it through. */
function gateRefusal(caller: Caller, op: DocumentOperation, method: string, operationId: string): string | null {
  if (op["x-public"]) return null;
  const kinds = op["x-key-kinds"] ?? ["account"];
  const scope = op["x-scope"];
  const testKey = op["x-test-key"] === true;
  if (!caller.key && !caller.session) return "unauthorized";
  if (!kinds.includes(caller.kind!)) return "wrong_key_kind";
  // An auditor (an operator user who reads only) changes nothing but its own sign-in.
  if (
    caller.session?.role === "auditor" &&
    isAudited(method, operationId) &&
    !/^(Sessions|TwoFactor)_|^Passwords_change$/.test(operationId)
  )
    return "insufficient_role";
  if (caller.session && op["x-roles"] && !op["x-roles"].includes(caller.session.role)) return "insufficient_role";
  if (caller.maker && op["x-roles"] && !op["x-roles"].includes(caller.maker)) return "insufficient_role";
  if (caller.kind === "account" && scope && !(COVERS[caller.scope!] as readonly string[]).includes(scope)) return "insufficient_scope";
  if (caller.maker && scope && !(COVERS[ROLE_SCOPE[caller.maker]] as readonly string[]).includes(scope)) return "insufficient_role";
  if (caller.test && scope !== "read" && !testKey) return "test_key_not_allowed";
  return null;
}

/** A person of the account (null: an operator user) with `role`, invited by the operator and signed in. */
async function sessionOf(
  operator: { request: (method: string, path: string, body?: unknown) => Promise<Response> },
  accountId: string | null,
  role: string,
): Promise<{ cookie: string; csrf: string; role: string; userId: string }> {
  const email = `${role}-${Date.now()}-${Math.floor(Math.random() * 1e6)}@example.com`;
  const invited = accountId
    ? await operator.request("POST", `/api/v1/accounts/${accountId}/users/invite`, { email, role })
    : await operator.request("POST", "/api/v1/operator-users/invite", { email, role });
  expect(invited.status).toBe(201);
  const { inviteToken } = (await invited.json()) as { inviteToken: string };
  const post = (path: string, body: unknown) =>
    fetch(server().baseUrl + path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const password = "a passphrase for spellings";
  expect((await post("/api/v1/users/accept", { token: inviteToken, password })).status).toBe(201);
  const signedIn = await post("/api/v1/session", { email, password });
  expect(signedIn.status).toBe(201);
  const { csrfToken, userId } = (await signedIn.json()) as { csrfToken: string; userId: string };
  return { cookie: signedIn.headers.get("set-cookie")!.split(";")[0]!, csrf: csrfToken, role, userId };
}

/** A key the signed-in person makes with their session. */
async function keyMadeBy(session: { cookie: string; csrf: string }, body: object): Promise<string> {
  const res = await fetch(server().baseUrl + "/api/v1/keys", {
    method: "POST",
    headers: { Cookie: session.cookie, "X-CSRF-Token": session.csrf, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { key: string }).key;
}

describe("access whatever the spelling of the path", () => {
  it("every operation: the document's spelling is judged by the gate, every other spelling is 404 for every caller", async () => {
    const { db, baseUrl } = server();
    const a = await server().account();
    const victim = await server().account();
    const operator = await server().operator();
    const keyOf = async (body: object) => {
      const res = await a.request("POST", "/api/v1/keys", body);
      expect(res.status).toBe(201);
      return ((await res.json()) as { key: string }).key;
    };
    const owner = await sessionOf(operator, a.accountId, "owner");
    const developer = await sessionOf(operator, a.accountId, "developer");
    // A viewer makes no key: a viewer's key is one its maker made as a developer, before being demoted.
    const demoted = await sessionOf(operator, a.accountId, "developer");
    const demotedKey = await keyMadeBy(demoted, { scope: "full" });
    expect((await a.request("PATCH", `/api/v1/users/${demoted.userId}`, { role: "viewer" })).status).toBe(200);
    const callers: Caller[] = [
      { name: "no key" },
      { name: "operator", key: operator.key, kind: "operator" },
      { name: "account full", key: a.key, kind: "account", scope: "full" },
      { name: "account send", key: await keyOf({ scope: "send" }), kind: "account", scope: "send" },
      { name: "account read", key: await keyOf({ scope: "read" }), kind: "account", scope: "read" },
      { name: "account test", key: await keyOf({ test: true }), kind: "account", scope: "full", test: true },
      // People signed in: their role stands for a scope, and `x-roles` besides.
      { name: "owner session", session: owner, kind: "account", scope: "full" },
      { name: "viewer session", session: await sessionOf(operator, a.accountId, "viewer"), kind: "account", scope: "read" },
      { name: "developer session", session: developer, kind: "account", scope: "full" },
      { name: "operator user session", session: await sessionOf(operator, null, "operator"), kind: "operator" },
      { name: "auditor session", session: await sessionOf(operator, null, "auditor"), kind: "operator" },
      // Keys people made: no more than their maker's role now.
      { name: "owner's key", key: await keyMadeBy(owner, { scope: "full" }), kind: "account", scope: "full", maker: "owner" },
      {
        name: "admin's key",
        key: await keyMadeBy(await sessionOf(operator, a.accountId, "admin"), { scope: "full" }),
        kind: "account",
        scope: "full",
        maker: "admin",
      },
      { name: "developer's key", key: await keyMadeBy(developer, { scope: "full" }), kind: "account", scope: "full", maker: "developer" },
      {
        name: "developer's send key",
        key: await keyMadeBy(developer, { scope: "send" }),
        kind: "account",
        scope: "send",
        maker: "developer",
      },
      { name: "demoted viewer's key", key: demotedKey, kind: "account", scope: "full", maker: "viewer" },
    ];
    const counts = async () =>
      Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, Number((await db(t).count({ n: "*" }))[0]!.n)])));
    const before = await counts();

    const uuid = "00000000-0000-4000-8000-000000000001";
    const fill = (path: string) =>
      path.replace(/\{(\w+)\}/g, (_m, name: string) =>
        name === "accountId" ? victim.accountId : name === "keyId" ? victim.keyId : name === "phone" ? "%2B14155550100" : uuid,
      );
    const operations = documentOperations(loadDocument()).filter((op) => op.path.startsWith("/api/v1/"));
    expect(operations.length).toBeGreaterThan(70);

    const call = (caller: Caller, method: string, path: string) => {
      const body = method === "GET" || method === "DELETE" ? undefined : JSON.stringify({ name: "x", phoneNumber: "+14155550100" });
      return fetch(baseUrl + path, {
        method,
        headers: {
          ...(caller.key ? { Authorization: `Bearer ${caller.key}` } : {}),
          ...(caller.session ? { Cookie: caller.session.cookie, "X-CSRF-Token": caller.session.csrf } : {}),
          ...(body ? { "Content-Type": "application/json" } : {}),
        },
        body,
      });
    };

    let refusedAtTheGate = 0;
    let otherSpellingsTried = 0;
    for (const op of operations) {
      const method = op.method.toUpperCase();
      for (const caller of callers) {
        const refusal = gateRefusal(caller, op.operation, method, op.operationId);
        if (refusal) {
          const res = await call(caller, method, fill(op.path));
          const label = `${caller.name}: ${op.operationId} ${method} ${fill(op.path)}`;
          expect(res.status, label).toBe(refusal === "unauthorized" ? 401 : 403);
          expect((await problemOf(res)).code, label).toBe(refusal);
          refusedAtTheGate++;
        }
        for (const spelling of otherSpellings(op.path, fill)) {
          const res = await call(caller, method, spelling);
          const label = `${caller.name}: ${op.operationId} ${method} ${spelling}`;
          expect(res.status, label).toBe(404);
          expect((await problemOf(res)).code, label).toBe("not_found");
          otherSpellingsTried++;
        }
      }
    }
    // Every operator operation refused to each of the four account keys and to no key, at least.
    expect(refusedAtTheGate).toBeGreaterThan(100);
    expect(otherSpellingsTried).toBeGreaterThan(operations.length * callers.length * 6);
    expect(await counts()).toEqual(before);
    // Some 15 callers by 8 spellings of every operation: about 16,000 requests, 30 s or more on a busy 2-core
    // machine; its own bound, far above that, so a slow neighbour never fails it.
  }, 300_000);

  it("the bulk charge counts an import whatever else is tried: another spelling is 404 and charges nothing", async () => {
    const a = await server().account();
    const res = await a.request("POST", "/api/v1/CONTACTS/IMPORT", { contacts: [{ phone: "+14155550100" }] });
    expect(res.status).toBe(404);
    const { db } = server();
    expect(Number((await db("contacts").where({ account_id: a.accountId }).count({ n: "*" }))[0]!.n)).toBe(0);
  });

  it("a method the path does not take is 405 with Allow, before authentication", async () => {
    const res = await fetch(`${server().baseUrl}/api/v1/accounts`, { method: "DELETE" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, POST");
    expect((await problemOf(res)).code).toBe("method_not_allowed");
  });

  it("an operator's change to an account is audited under that account, where its holder sees it", async () => {
    const operator = await server().operator();
    const b = await server().account();
    const made = await operator.request("POST", `/api/v1/accounts/${b.accountId}/keys`, { name: "ops-made" });
    expect(made.status).toBe(201);
    const { keyId } = (await made.json()) as { keyId: string };
    const seen = (await (await b.request("GET", "/api/v1/audit-events?action=OperatorAccountKeys_create")).json()) as {
      data: { accountId: string; resourceId: string; actor: { type: string } }[];
    };
    expect(seen.data).toEqual([
      expect.objectContaining({ accountId: b.accountId, resourceId: keyId, actor: expect.objectContaining({ type: "operator" }) }),
    ]);
  });
});
