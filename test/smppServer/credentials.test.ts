// SMPP credentials through the operator API (docs/SMPP.md, "For client applications"): made with the password
// shown once and stored hashed, listed, changed, deleted, a system_id unique in the service, bad input a 400,
// each change in the audit log without its body.
import { describe, expect, it } from "vitest";
import { useTestServer } from "../helpers/server.js";

const server = useTestServer();

const credentialsOf = (accountId: string) => `/api/v1/accounts/${accountId}/smpp-credentials`;

describe("SMPP credentials", () => {
  it("are made with defaults, the password shown once and stored hashed, listed without it, changed and deleted", async () => {
    const { request } = await server().operator();
    const { accountId } = await server().account("smpp-creds");
    const created = await request("POST", credentialsOf(accountId), { systemId: "acme01", password: "s3cret!" });
    expect(created.status, await created.clone().text()).toBe(201);
    expect(await created.json()).toEqual({
      systemId: "acme01",
      accountId,
      maxBinds: 4,
      submitsPerSecond: 50,
      window: 10,
      allowedIps: [],
      messageIdFormat: "uuid",
      test: false,
      createdAt: expect.any(String),
      lockedUntil: null,
      sessions: [],
      password: "s3cret!",
    });
    const stored = await server().db("smpp_credentials").where({ system_id: "acme01" }).first("password_hash");
    expect(stored.password_hash).toMatch(/^scrypt\$/);
    expect(stored.password_hash).not.toContain("s3cret!");

    const list = await request("GET", credentialsOf(accountId));
    expect(list.status).toBe(200);
    const { data } = (await list.json()) as { data: Record<string, unknown>[] };
    expect(data).toHaveLength(1);
    expect(data[0]).not.toHaveProperty("password");

    const changed = await request("PATCH", `${credentialsOf(accountId)}/acme01`, {
      submitsPerSecond: 100,
      allowedIps: ["127.0.0.1", "2001:db8::/32"],
      messageIdFormat: "hex",
    });
    expect(changed.status, await changed.clone().text()).toBe(200);
    expect(await changed.json()).toMatchObject({
      submitsPerSecond: 100,
      allowedIps: ["127.0.0.1", "2001:db8::/32"],
      messageIdFormat: "hex",
    });

    expect((await request("DELETE", `${credentialsOf(accountId)}/acme01`)).status).toBe(204);
    expect((await request("DELETE", `${credentialsOf(accountId)}/acme01`)).status).toBe(404);
    expect((await request("PATCH", `${credentialsOf(accountId)}/acme01`, { window: 5 })).status).toBe(404);

    const audited = await server()
      .db("audit_events")
      .where({ account_id: accountId })
      .andWhereLike("action", "OperatorSmppCredentials%")
      .select("action", "resource_id");
    expect(audited.map((e) => e.resource_id)).toEqual(["acme01", "acme01", "acme01"]);
    expect(audited.map((e) => e.action).sort()).toEqual([
      "OperatorSmppCredentials_create",
      "OperatorSmppCredentials_delete",
      "OperatorSmppCredentials_update",
    ]);
    expect(JSON.stringify(audited)).not.toContain("s3cret!");
  });

  it("keep a system_id unique across accounts (409), and refuse bad input with 400 naming the field", async () => {
    const { request } = await server().operator();
    const a = await server().account("smpp-a");
    const b = await server().account("smpp-b");
    expect((await request("POST", credentialsOf(a.accountId), { systemId: "shared1", password: "pw" })).status).toBe(201);
    const taken = await request("POST", credentialsOf(b.accountId), { systemId: "shared1", password: "pw" });
    expect(taken.status).toBe(409);
    expect(await taken.json()).toMatchObject({ code: "system_id_exists" });

    for (const [body, path] of [
      [{ systemId: "x".repeat(16), password: "pw" }, "/body/systemId"],
      [{ systemId: "ok2", password: "123456789" }, "/body/password"],
      [{ systemId: "ok3", password: "pw", maxBinds: 21 }, "/body/maxBinds"],
      [{ systemId: "ok4", password: "pw", messageIdFormat: "octal" }, "/body/messageIdFormat"],
      [{ systemId: "ok5", password: "pw", allowedIps: ["10.0.0.0/33"] }, "/body/allowedIps/0"],
      [{ systemId: "ok6", password: "pw", allowedIps: ["not-an-address"] }, "/body/allowedIps/0"],
    ] as const) {
      const res = await request("POST", credentialsOf(a.accountId), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const problem = (await res.json()) as { errors: { path: string }[] };
      expect(problem.errors.map((e) => e.path)).toContain(path);
    }
    // An account's key may not manage credentials; an unknown account is 404.
    expect((await a.request("POST", credentialsOf(a.accountId), { systemId: "own1", password: "pw" })).status).toBe(403);
    expect((await request("GET", credentialsOf("7e6d5c4b-3a29-4180-9f7e-6d5c4b3a2918"))).status).toBe(404);
  });
});
