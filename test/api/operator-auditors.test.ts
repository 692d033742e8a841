// Operator users' roles (CONTRACT "people and operators, complete"; docs/USERS.md "Operator users"): `operator`
// does everything the operator API does, `auditor` reads only. An auditor's session calls every operation of
// the operator API in the document: each that changes something (what the audit log records) is 403
// `insufficient_role` and changes nothing, each that only reads is past the gate, and its own sign-in stays its
// own. PATCH /operator-users/{userId} changes the role, audited, and takes effect on the next request.
import { beforeAll, describe, expect, it } from "vitest";
import { isAudited } from "../../server/http/audit.js";
import { documentOperations, loadDocument } from "../../server/http/document.js";
import { people, uniqueEmail } from "../helpers/people.js";
import { problemOf, useTestServer, type TestOperator } from "../helpers/server.js";

const server = useTestServer();
let op: TestOperator;
beforeAll(async () => {
  op = await server().operator();
});
const { userOf, signIn } = people(server, () => op);

/** Row counts a change through the operator API would move. */
const CHANGED = [
  "accounts",
  "api_keys",
  "users",
  "user_invitations",
  "connectors",
  "numbers",
  "price_lists",
  "smpp_credentials",
  "routing_tables",
];
/** A person's own sign-in: what an auditor changes too (its sessions, second factor and password). */
const OWN = /^(Sessions|TwoFactor)_|^Passwords_change$/;

describe("operator users' roles", () => {
  it("an auditor's session reads every operator operation and changes nothing through any (403 insufficient_role)", async () => {
    const email = uniqueEmail("auditor");
    await userOf(null, email, "auditor");
    const auditor = await signIn(email);
    expect(auditor.session.role).toBe("auditor");
    // An operator user beside it: what only reads answers the auditor as it answers the operator.
    const operatorEmail = uniqueEmail("operator");
    await userOf(null, operatorEmail);
    const operator = await signIn(operatorEmail);
    const db = server().db;
    const tables = (
      await db.raw<{ rows: { t: string }[] }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = current_schema()`)
    ).rows.map((r) => r.t);
    const counted = CHANGED.filter((t) => tables.includes(t));
    const counts = async () =>
      Object.fromEntries(await Promise.all(counted.map(async (t) => [t, Number((await db(t).count({ n: "*" }))[0]!.n)])));
    const before = await counts();
    const uuid = "00000000-0000-4000-8000-000000000001";
    const operations = documentOperations(loadDocument()).filter(
      (o) =>
        o.path.startsWith("/api/v1/") &&
        !o.operation["x-public"] &&
        (o.operation["x-key-kinds"] ?? ["account"]).includes("operator") &&
        !OWN.test(o.operationId),
    );
    expect(operations.length).toBeGreaterThan(30);
    let refused = 0;
    for (const o of operations) {
      const method = o.method.toUpperCase();
      const path = o.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
        name === "phone" ? "%2B14155550100" : name === "keyId" ? "AAAAAAAAAAAA" : uuid,
      );
      const hasBody = method !== "GET" && method !== "DELETE";
      // A malformed body: a reached handler answers 400 and changes nothing.
      const call = (who: typeof auditor) =>
        fetch(server().baseUrl + path, {
          method,
          headers: { Cookie: who.cookie, "X-CSRF-Token": who.csrf, ...(hasBody ? { "Content-Type": "application/json" } : {}) },
          body: hasBody ? "{" : undefined,
        });
      const res = await call(auditor);
      const label = `auditor: ${o.operationId} ${method} ${path} → ${res.status}`;
      const code = res.status === 401 || res.status === 403 ? (await problemOf(res)).code : undefined;
      if (isAudited(method, o.operationId)) {
        expect(res.status, label).toBe(403);
        expect(code, label).toBe("insufficient_role");
        refused++;
      } else {
        const asOperator = await call(operator);
        expect(res.status, label).toBe(asOperator.status);
        expect(code, label).not.toBe("insufficient_role");
        await asOperator.arrayBuffer();
      }
      if (!res.bodyUsed) await res.arrayBuffer();
    }
    expect(refused).toBeGreaterThan(20);
    expect(await counts()).toEqual(before);
    // Its own sign-in is its own: its sessions listed, its password changed.
    expect((await auditor.request("GET", "/api/v1/sessions")).status).toBe(200);
    const changed = await auditor.request("POST", "/api/v1/users/me/password", {
      currentPassword: "a long and private passphrase",
      newPassword: "an auditor's own new passphrase",
    });
    expect(changed.status).toBe(204);
  });

  it("PATCH /operator-users/{userId} changes the role, audited, from the next request; 404 for an account's user", async () => {
    const email = uniqueEmail("staff");
    const { userId } = await userOf(null, email);
    const person = await signIn(email);
    const invite = () => person.request("POST", "/api/v1/operator-users/invite", { email: uniqueEmail("colleague") });
    expect((await invite()).status).toBe(201);

    const demoted = await op.request("PATCH", `/api/v1/operator-users/${userId}`, { role: "auditor" });
    expect(demoted.status).toBe(200);
    expect(await demoted.json()).toMatchObject({ userId, email, role: "auditor", accountId: null });
    // The same session reads only now.
    const refused = await invite();
    expect(refused.status).toBe(403);
    expect((await problemOf(refused)).code).toBe("insufficient_role");
    expect((await person.request("GET", "/api/v1/operator-users")).status).toBe(200);
    const listed = (await (await op.request("GET", "/api/v1/operator-users")).json()) as { data: { userId: string; role: string }[] };
    expect(listed.data.find((u) => u.userId === userId)?.role).toBe("auditor");

    expect((await op.request("PATCH", `/api/v1/operator-users/${userId}`, { role: "operator" })).status).toBe(200);
    expect((await invite()).status).toBe(201);

    // An auditor may not promote itself, nor anyone.
    expect((await op.request("PATCH", `/api/v1/operator-users/${userId}`, { role: "auditor" })).status).toBe(200);
    const selfPromotion = await person.request("PATCH", `/api/v1/operator-users/${userId}`, { role: "operator" });
    expect(selfPromotion.status).toBe(403);
    expect((await problemOf(selfPromotion)).code).toBe("insufficient_role");

    // Not an operator user: 404; not a role of operator users: 400.
    const a = await server().account();
    const owner = await userOf(a, uniqueEmail("owner"), "owner");
    expect((await op.request("PATCH", `/api/v1/operator-users/${owner.userId}`, { role: "auditor" })).status).toBe(404);
    expect((await op.request("PATCH", `/api/v1/operator-users/${userId}`, { role: "owner" })).status).toBe(400);

    const events = (await (await op.request("GET", "/api/v1/audit-events?action=OperatorUsers_update&limit=10")).json()) as {
      data: { resourceId: string; actor: { keyId: string } }[];
    };
    expect(events.data.filter((e) => e.resourceId === userId)).toHaveLength(3);
  });
});
