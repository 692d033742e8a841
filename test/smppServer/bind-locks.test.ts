// SMPP binds cannot be guessed (docs/SMPP.md, "For client applications"), over a real client (the `smpp` package) on
// 127.0.0.1: ten failed binds of a system_id lock it (ESME_RBINDFAIL, the right password included), the lock is
// audited, shown on the credential (`lockedUntil`) and lifted by the operator (POST …/unlock); concurrent guesses
// are counted before any password is checked; failures from one address slow that address; system_ids are
// unique case-folded (409 system_id_exists).
import smpp, { type PDU, type Session } from "smpp";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { giveSmppCredentials, useSmppServer } from "../helpers/smppServer.js";

const server = useTestServer();
const smppServer = useSmppServer(server);
const e = smpp.errors;
let account: TestAccount;
const sessions: Session[] = [];
const credentialsOf = (accountId: string) => `/api/v1/accounts/${accountId}/smpp-credentials`;

beforeAll(async () => {
  account = await server().account("smpp-locks");
});
afterEach(() => {
  for (const s of sessions.splice(0)) s.destroy();
});

async function connect(): Promise<Session> {
  const session = smpp.connect({ url: `smpp://127.0.0.1:${smppServer().port}` });
  sessions.push(session);
  session.on("error", () => {});
  await new Promise<void>((done) => session.socket.once("connect", () => done()));
  return session;
}

const bind = (s: Session, systemId: string, password: string) =>
  new Promise<PDU>((resolve) => s.bind_transceiver({ system_id: systemId, password }, resolve)).then((p) => p.command_status);

async function credential(systemId: string) {
  const { request } = await server().operator();
  const { data } = (await (await request("GET", credentialsOf(account.accountId))).json()) as { data: Record<string, unknown>[] };
  return data.find((c) => c.systemId === systemId)!;
}

describe("SMPP bind locks", () => {
  it("locks a system_id after ten failed binds, the right password refused, audited, shown, and lifted by the operator", async () => {
    await giveSmppCredentials(server, account.accountId, { systemId: "locked1", password: "right" });
    expect(await credential("locked1")).toMatchObject({ lockedUntil: null });
    const s = await connect();
    for (let i = 1; i <= 10; i++) expect(await bind(s, "locked1", `wrong${i}`), `failure ${i}`).toBe(e.ESME_RINVPASWD);
    const at = Date.now();
    expect(await bind(s, "locked1", "right")).toBe(e.ESME_RBINDFAIL);
    const shown = await credential("locked1");
    expect(typeof shown.lockedUntil).toBe("string");
    const until = new Date(shown.lockedUntil as string).getTime();
    expect(until).toBeGreaterThan(at + 14 * 60_000);
    expect(until).toBeLessThan(at + 16 * 60_000);
    const audited = await server()
      .db("audit_events")
      .where({ account_id: account.accountId, action: "smppCredentials.lock" })
      .select("resource_id", "actor_type", "key_id");
    expect(audited).toEqual([{ resource_id: "locked1", actor_type: "account", key_id: "smpp:locked1" }]);

    // Another account's key cannot unlock; the operator can, audited as its operation.
    const path = `${credentialsOf(account.accountId)}/locked1/unlock`;
    expect((await account.request("POST", path)).status).toBe(403);
    const { request } = await server().operator();
    const unlocked = await request("POST", path);
    expect(unlocked.status, await unlocked.clone().text()).toBe(200);
    expect(await unlocked.json()).toMatchObject({ systemId: "locked1", lockedUntil: null });
    expect((await request("POST", `${credentialsOf(account.accountId)}/nobody/unlock`)).status).toBe(404);
    expect(
      await server()
        .db("audit_events")
        .where({ account_id: account.accountId, action: "OperatorSmppCredentials_unlock" })
        .pluck("resource_id"),
    ).toEqual(["locked1"]);
    expect(await bind(s, "locked1", "right")).toBe(0);
  });

  it("counts concurrent guesses before checking a password: at most ten are checked", async () => {
    await giveSmppCredentials(server, account.accountId, { systemId: "racing1", password: "right" });
    const clients = await Promise.all(Array.from({ length: 15 }, () => connect()));
    const answers = await Promise.all(clients.map((c, i) => bind(c, "racing1", `guess${i}`)));
    expect(answers.filter((a) => a === e.ESME_RINVPASWD).length).toBeLessThanOrEqual(10);
    expect(answers.filter((a) => a === e.ESME_RBINDFAIL).length).toBeGreaterThanOrEqual(5);
    expect(answers.every((a) => a === e.ESME_RINVPASWD || a === e.ESME_RBINDFAIL)).toBe(true);
    expect(await bind(await connect(), "racing1", "right")).toBe(e.ESME_RBINDFAIL);
  });

  it("keeps system_ids unique case-folded: BRAVO01 beside bravo01 is 409 system_id_exists", async () => {
    const { request } = await server().operator();
    const other = await server().account("smpp-locks-other");
    expect((await request("POST", credentialsOf(account.accountId), { systemId: "bravo01", password: "pw" })).status).toBe(201);
    for (const systemId of ["BRAVO01", "Bravo01", "bravo01"]) {
      const res = await request("POST", credentialsOf(other.accountId), { systemId, password: "pw" });
      expect(res.status, systemId).toBe(409);
      expect(await res.json()).toMatchObject({ code: "system_id_exists" });
    }
    expect(await server().db("smpp_credentials").whereRaw("lower(system_id) = 'bravo01'").pluck("system_id")).toEqual(["bravo01"]);
  });

  // Last: it slows this address down for the rest of the file.
  it("slows an address down after 30 failed binds: its binds are refused, whatever they name", async () => {
    await giveSmppCredentials(server, account.accountId, { systemId: "fine1", password: "right" });
    const s = await connect();
    // The earlier tests' failures count too: unknown system_ids are told apart until the 30th failure, then not.
    const answers: number[] = [];
    for (let i = 0; i < 31; i++) answers.push(await bind(s, `nobody${i}`, "pw"));
    const slowed = answers.indexOf(e.ESME_RBINDFAIL!);
    expect(slowed).toBeGreaterThanOrEqual(0);
    expect(answers.slice(0, slowed).every((a) => a === e.ESME_RINVSYSID)).toBe(true);
    expect(answers.slice(slowed).every((a) => a === e.ESME_RBINDFAIL)).toBe(true);
    expect(await bind(s, "fine1", "right")).toBe(e.ESME_RBINDFAIL);
    const failures = await server().db("sign_in_failures").where({ address: "smpp:127.0.0.1" }).first("failures");
    expect(failures.failures).toBe(30);
    expect(await credential("fine1")).toMatchObject({ lockedUntil: null });
  });
});
