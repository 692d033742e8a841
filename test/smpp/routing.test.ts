// Carrier routing (docs/ROUTING.md) against two SMSCs on 127.0.0.1, made connectors through the operator API:
// routes by prefix and by account, failover when a carrier refuses a prefix (both attempts on the message, each
// SMSC sees it once), messages waiting for a connector and sent once one is enabled or the table changes, no
// route, and the API's rules (names, versions, a connector in use, explain). Counts and order, never times.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import smpp from "smpp";
import { createLogger } from "../../server/logger.js";
import { startWorker, type Worker } from "../../server/worker.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { startSmsc, type Smsc } from "../helpers/smsc.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

const server = useTestServer({ ...fastWorkerConfig, provider: "smpp", connectorRefreshMs: 100, smppMaxPerSecond: 1000 });
let a: Smsc;
let b: Smsc;
let worker: Worker;
let connectorA: string;
let connectorB: string;
let account: TestAccount;

interface Message {
  status: string;
  connectorId: string | null;
  attempts: { connectorId: string; error: { code: string } | null }[];
  waitingFor: string | null;
  error: { code: string } | null;
}

const operator = async () => (await server().operator()).request;
const linkOf = (s: Smsc) => {
  const url = new URL(s.url);
  return { host: url.hostname, port: Number(url.port), systemId: url.username, password: url.password };
};
const createConnector = async (name: string, s: Smsc) => {
  const res = await (await operator())("POST", "/api/v1/connectors", { name, type: "smpp", smpp: linkOf(s) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { connectorId: string }).connectorId;
};
const connector = async (id: string) =>
  (await (await (await operator())("GET", `/api/v1/connectors/${id}`)).json()) as Record<string, unknown>;
const putRoutes = async (routes: unknown[]) => {
  const request = await operator();
  const { version } = (await (await request("GET", "/api/v1/routes")).json()) as { version: number };
  const res = await request("PUT", "/api/v1/routes", { version, routes });
  expect(res.status).toBe(200);
  // The worker routes by it from its next refresh: wait for that, not for a time.
  await waitUntil("the worker routes by the new table", async () => worker.connectors!.tableVersion === version + 1);
  return (await res.json()) as { version: number; warnings: { path: string; message: string }[] };
};
const running = (id: string) => worker.connectors!.list().some((c) => c.id === id && c.up);
const send = async (to: string, from = "ACME", who = account) => {
  const res = await who.request("POST", "/api/v1/messages", { to, from, body: `hello ${to}` });
  expect(res.status).toBe(201);
  return ((await res.json()) as { messageId: string }).messageId;
};
const message = async (id: string, who = account) => (await (await who.request("GET", `/api/v1/messages/${id}`)).json()) as Message;
const settled = (id: string, who = account) =>
  waitUntil(`message ${id} handed over or failed`, async () => {
    const m = await message(id, who);
    return m.status === "sent" || m.status === "failed" ? m : undefined;
  });
const submitsTo = (s: Smsc, to: string) => s.submits.filter((p) => p.destination_addr === to.slice(1)).length;

beforeAll(async () => {
  [a, b] = await Promise.all([startSmsc(), startSmsc()]);
  const s = server();
  worker = await startWorker({ db: s.db, databaseUrl: s.url, log: createLogger(process.env.TEST_LOG_LEVEL ?? "silent"), config: s.config });
  connectorA = await createConnector("carrier-a", a);
  connectorB = await createConnector("carrier-b", b);
  account = await s.account();
  await waitUntil(
    "both connectors bound",
    async () => (await connector(connectorA)).state === "bound" && (await connector(connectorB)).state === "bound",
  );
});
afterAll(async () => {
  await worker?.stop(1000);
  await Promise.all([a?.close(), b?.close()]);
});

describe("connectors", () => {
  it("are listed with their live state, never with their password; names are unique", async () => {
    const request = await operator();
    const list = (await (await request("GET", "/api/v1/connectors")).json()) as { data: Record<string, unknown>[] };
    const shown = list.data.find((c) => c.connectorId === connectorA)!;
    expect(shown).toMatchObject({ name: "carrier-a", type: "smpp", enabled: true, state: "bound", sessionsBound: 1, lastError: null });
    expect(shown.smpp).toMatchObject({ host: "127.0.0.1", sessions: 1, messageIdFormat: "auto" });
    expect(JSON.stringify(list)).not.toContain("secret");
    const again = await request("POST", "/api/v1/connectors", { name: "carrier-a", type: "simulator" });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { code: string }).code).toBe("connector_exists");
    const noLink = await request("POST", "/api/v1/connectors", { name: "carrier-x", type: "smpp" });
    expect(noLink.status).toBe(400);
  });

  it("a connector a route names cannot be deleted; the table refuses unknown connectors and stale versions", async () => {
    await putRoutes([{ name: "all", match: {}, connectors: [{ connectorId: connectorA }] }]);
    const request = await operator();
    const del = await request("DELETE", `/api/v1/connectors/${connectorA}`);
    expect(del.status).toBe(409);
    expect(((await del.json()) as { code: string }).code).toBe("connector_in_use");
    const { version } = (await (await request("GET", "/api/v1/routes")).json()) as { version: number };
    const stale = await request("PUT", "/api/v1/routes", { version: version - 1, routes: [] });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { code: string }).code).toBe("version_conflict");
    const unknown = await request("PUT", "/api/v1/routes", {
      version,
      routes: [{ name: "x", match: {}, connectors: [{ connectorId: "01937c1e-8f00-7a8b-9c0d-1e2f3a4b5c6d" }] }],
    });
    expect(unknown.status).toBe(422);
    const problem = (await unknown.json()) as { code: string; errors: { path: string }[] };
    expect(problem.code).toBe("route_invalid");
    expect(problem.errors.map((e) => e.path)).toEqual(["/body/routes/0/connectors/0/connectorId"]);
    // A country code that is no country (UK: the United Kingdom is GB) is bad input, named.
    const uk = await request("PUT", "/api/v1/routes", {
      version,
      routes: [{ name: "uk", match: { countries: ["UK"] }, connectors: [{ connectorId: connectorA }] }],
    });
    expect(uk.status).toBe(400);
    const ukProblem = (await uk.json()) as { code: string; detail: string; errors: { path: string }[] };
    expect(ukProblem).toMatchObject({ code: "validation_failed", errors: [{ path: "/body/routes/0/match/countries/0" }] });
    expect(ukProblem.detail).toContain("the United Kingdom is GB");
    expect(((await (await request("GET", "/api/v1/routes")).json()) as { version: number }).version).toBe(version);
  });
});

describe("routes that can never match", () => {
  it("are saved with a warning naming them and the route that shadows them, in GET as in PUT", async () => {
    const put = await putRoutes([
      { name: "rest", match: {}, connectors: [{ connectorId: connectorB }] },
      { name: "uk", match: { prefixes: ["+44"] }, connectors: [{ connectorId: connectorA }] },
    ]);
    expect(put.warnings).toEqual([{ path: "/routes/1", message: expect.stringContaining("the route rest before it takes every message") }]);
    const got = (await (await (await operator())("GET", "/api/v1/routes")).json()) as { warnings: unknown[] };
    expect(got.warnings).toEqual(put.warnings);
    const fixed = await putRoutes([
      { name: "uk", match: { prefixes: ["+44"] }, connectors: [{ connectorId: connectorA }] },
      { name: "rest", match: {}, connectors: [{ connectorId: connectorB }] },
    ]);
    expect(fixed.warnings).toEqual([]);
  });
});

describe("routes", () => {
  it("send each message by the first route that matches it: by prefix, by account, else the catch-all", async () => {
    const other = await server().account();
    await putRoutes([
      { name: "uk", match: { prefixes: ["+44"] }, connectors: [{ connectorId: connectorA }] },
      { name: "vip", match: { accountIds: [other.accountId] }, connectors: [{ connectorId: connectorA }] },
      { name: "rest", match: {}, connectors: [{ connectorId: connectorB }] },
    ]);
    const uk = await send("+447400123401");
    const us = await send("+14155550101");
    const vip = await send("+14155550102", "ACME", other);
    expect((await settled(uk)).connectorId).toBe(connectorA);
    expect((await settled(us)).connectorId).toBe(connectorB);
    expect((await settled(vip, other)).connectorId).toBe(connectorA);
    expect([submitsTo(a, "+447400123401"), submitsTo(b, "+447400123401")]).toEqual([1, 0]);
    expect([submitsTo(a, "+14155550101"), submitsTo(b, "+14155550101")]).toEqual([0, 1]);
    expect([submitsTo(a, "+14155550102"), submitsTo(b, "+14155550102")]).toEqual([1, 0]);
    const explained = await (
      await operator()
    )("POST", "/api/v1/routes/explain", { to: "+447400123499", from: "ACME", accountId: account.accountId });
    expect(await explained.json()).toEqual({
      route: "uk",
      candidates: [{ connectorId: connectorA, available: true, reason: null }],
      sender: "ACME",
    });
    // With a sender pool: the sender it would choose now (the one of the recipient's country), nothing chosen.
    await account.holds("+447400123470");
    const pooled = await account.request("POST", "/api/v1/sender-pools", { name: "explained", senders: ["ACME", "+447400123470"] });
    const { senderPoolId } = (await pooled.json()) as { senderPoolId: string };
    const withPool = await (
      await operator()
    )("POST", "/api/v1/routes/explain", {
      to: "+447400123499",
      senderPoolId,
      accountId: account.accountId,
    });
    expect(((await withPool.json()) as { sender: string }).sender).toBe("+447400123470");
    const both = await (
      await operator()
    )("POST", "/api/v1/routes/explain", { to: "+447400123499", from: "ACME", senderPoolId, accountId: account.accountId });
    expect(both.status).toBe(400);
  });

  it("a message no route matches fails no_route", async () => {
    await putRoutes([{ name: "uk", match: { prefixes: ["+44"] }, connectors: [{ connectorId: connectorA }] }]);
    const id = await send("+14155550103");
    const m = await settled(id);
    expect(m).toMatchObject({ status: "failed", error: { code: "no_route" }, connectorId: null, attempts: [] });
  });

  it("a carrier that refuses a prefix: those messages fail over to the fallback, with both attempts on them", async () => {
    await putRoutes([{ name: "all", match: {}, connectors: [{ connectorId: connectorA }], fallback: [connectorB] }]);
    a.answer = (pdu) => (String(pdu.destination_addr).startsWith("4475") ? smpp.errors.ESME_RINVDSTADR! : 0);
    try {
      const refused = await send("+447500123404");
      const taken = await send("+447400123456");
      const m = await settled(refused);
      expect(m.status).toBe("sent");
      expect(m.connectorId).toBe(connectorB);
      expect(m.attempts.map((t) => [t.connectorId, t.error?.code ?? null])).toEqual([
        [connectorA, "ESME_RINVDSTADR"],
        [connectorB, null],
      ]);
      expect([submitsTo(a, "+447500123404"), submitsTo(b, "+447500123404")]).toEqual([1, 1]);
      const t = await settled(taken);
      expect(t.attempts.map((x) => [x.connectorId, x.error])).toEqual([[connectorA, null]]);
      expect([submitsTo(a, "+447400123456"), submitsTo(b, "+447400123456")]).toEqual([1, 0]);
      // The workers' counters: the refusal on A, the acceptance on B (reported at their next refresh).
      await waitUntil("the counters reported", async () => {
        const [ca, cb] = [await connector(connectorA), await connector(connectorB)];
        const counters = (c: Record<string, unknown>) => c.counters as { accepted: number; refused: number; unknown: number };
        return counters(ca).refused >= 1 && counters(cb).accepted >= 1 && counters(ca).unknown === 0;
      });
    } finally {
      a.answer = () => 0;
    }
  });

  it("with its only connector disabled a message waits for a connector, and goes once it is enabled again", async () => {
    await putRoutes([{ name: "all", match: {}, connectors: [{ connectorId: connectorA }] }]);
    const request = await operator();
    expect((await request("PATCH", `/api/v1/connectors/${connectorA}`, { enabled: false })).status).toBe(200);
    await waitUntil("carrier-a closed", async () => (await connector(connectorA)).state === "disabled" && !running(connectorA));
    const id = await send("+14155550105");
    await waitUntil("the message waits for a connector", async () => (await message(id)).waitingFor === "connector");
    expect((await message(id)).status).toBe("scheduled");
    expect(submitsTo(a, "+14155550105") + submitsTo(b, "+14155550105")).toBe(0);
    expect((await request("PATCH", `/api/v1/connectors/${connectorA}`, { enabled: true })).status).toBe(200);
    const m = await settled(id);
    expect(m).toMatchObject({ status: "sent", connectorId: connectorA, waitingFor: null });
    expect(submitsTo(a, "+14155550105")).toBe(1);
    await waitUntil("carrier-a bound again", async () => (await connector(connectorA)).state === "bound" && running(connectorA));
  });

  it("a table changed while a message waits applies to it, without a restart", async () => {
    await putRoutes([{ name: "all", match: {}, connectors: [{ connectorId: connectorA }] }]);
    const request = await operator();
    expect((await request("PATCH", `/api/v1/connectors/${connectorA}`, { enabled: false })).status).toBe(200);
    await waitUntil("carrier-a closed", async () => (await connector(connectorA)).state === "disabled" && !running(connectorA));
    const id = await send("+14155550106");
    await waitUntil("the message waits for a connector", async () => (await message(id)).waitingFor === "connector");
    await putRoutes([{ name: "all", match: {}, connectors: [{ connectorId: connectorA }], fallback: [connectorB] }]);
    const m = await settled(id);
    expect(m).toMatchObject({ status: "sent", connectorId: connectorB });
    expect([submitsTo(a, "+14155550106"), submitsTo(b, "+14155550106")]).toEqual([0, 1]);
    expect((await request("PATCH", `/api/v1/connectors/${connectorA}`, { enabled: true })).status).toBe(200);
    await waitUntil("carrier-a bound again", async () => (await connector(connectorA)).state === "bound" && running(connectorA));
  });
});
