// Account keys and operator keys (CONTRACT "Operator keys and accounts"): GET /api/v1/key says what a key is,
// to either kind; an operator key gets 403 wrong_key_kind on every account operation of the document, and
// changes nothing there.
import { describe, expect, it } from "vitest";
import { documentOperations, loadDocument } from "../../server/http/document.js";
import { createOperatorKey } from "../../server/operator/index.js";
import { problemOf, useTestServer } from "../helpers/server.js";

const server = useTestServer();
const KEY_ID = /^[0-9A-Za-z]{12}$/;

async function keyInfo(key: string) {
  const res = await fetch(`${server().baseUrl}/api/v1/key`, { headers: { Authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe("kinds of key", () => {
  it("GET /api/v1/key describes an account key and an operator key, with when each was last used", async () => {
    const a = await server().account();
    const before = Date.now();
    const info = await keyInfo(a.key);
    expect(info).toEqual({
      keyId: a.key.split("_")[1],
      kind: "account",
      name: null,
      scope: "full",
      test: false,
      accountId: a.accountId,
      expiresAt: null,
      createdAt: expect.any(String),
      lastUsedAt: expect.any(String),
      // Made by the command line, not a person.
      createdBy: null,
    });
    expect(Date.parse(info.lastUsedAt as string)).toBeGreaterThanOrEqual(before - 1000);

    const operator = await createOperatorKey(server().db, "night shift");
    expect(operator.keyId).toMatch(KEY_ID);
    expect(await keyInfo(operator.key)).toEqual({
      keyId: operator.keyId,
      kind: "operator",
      name: "night shift",
      scope: null,
      test: false,
      accountId: null,
      expiresAt: null,
      createdAt: expect.any(String),
      lastUsedAt: expect.any(String),
      // Made by the command line, not a person.
      createdBy: null,
    });
  });

  it("an operator key gets 403 wrong_key_kind on every account operation, and nothing is changed", async () => {
    const { db } = server();
    const operator = await createOperatorKey(db, "walker");
    const counts = async () =>
      Object.fromEntries(
        await Promise.all(
          ["messages", "contacts", "groups", "webhooks", "numbers", "opt_outs", "campaigns"].map(async (t) => [
            t,
            Number((await db(t).count({ n: "*" }))[0]!.n),
          ]),
        ),
      );
    const before = await counts();
    const uuid = "00000000-0000-4000-8000-000000000001";
    // Every operation of the account API: those whose x-key-kinds do not name the operator.
    const operations = documentOperations(loadDocument()).filter(
      // Not the public ones (accepting an invitation, signing in): no key is asked for, so none is refused.
      (op) => op.path.startsWith("/api/v1/") && !op.operation["x-public"] && !(op.operation["x-key-kinds"] ?? []).includes("operator"),
    );
    expect(operations.length).toBeGreaterThan(30);
    for (const op of operations) {
      const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === "phone" ? "%2B14155550100" : uuid));
      const res = await fetch(`${server().baseUrl}${path}`, {
        method: op.method.toUpperCase(),
        headers: {
          Authorization: `Bearer ${operator.key}`,
          ...(op.method === "get" || op.method === "delete" ? {} : { "Content-Type": "application/json" }),
        },
        body: op.method === "get" || op.method === "delete" ? undefined : "{}",
      });
      expect(res.status, `${op.operationId} ${op.method} ${path}`).toBe(403);
      expect((await problemOf(res)).code).toBe("wrong_key_kind");
    }
    expect(await counts()).toEqual(before);
  });

  it("an account key gets 403 wrong_key_kind on every operator operation, and nothing is changed", async () => {
    const a = await server().account();
    const db = server().db;
    const count = async () =>
      Number((await db("accounts").count({ n: "*" }))[0]!.n) + Number((await db("api_keys").count({ n: "*" }))[0]!.n);
    const before = await count();
    const operatorOnly = documentOperations(loadDocument()).filter(
      (op) => !(op.operation["x-key-kinds"] ?? ["account"]).includes("account"),
    );
    expect(operatorOnly.length).toBeGreaterThanOrEqual(12);
    for (const op of operatorOnly) {
      const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => (name === "keyId" ? a.keyId : a.accountId));
      const withBody = op.method !== "get" && op.method !== "delete";
      const res = await a.request(
        op.method.toUpperCase(),
        `${path}${op.operationId === "NumberHolders_get" ? "?phoneNumber=%2B14155550100" : ""}`,
        withBody ? { name: "x" } : undefined,
      );
      expect(res.status, op.operationId).toBe(403);
      expect((await problemOf(res)).code).toBe("wrong_key_kind");
    }
    expect(await count()).toBe(before);
  });
});
