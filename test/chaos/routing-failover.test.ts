// A carrier lost in the middle of a 10,000-message send (docs/ROUTING.md, "Failover"): the route's pool is
// SMSC A (the smpp package's server, test/helpers/smsc.ts), its fallback SMSC B. A is killed (its sessions
// destroyed, its port closed) once it has received 3,000 submits, the last few unanswered. By both SMSCs' own logs: no destination submitted
// twice, on one SMSC or across both; every message sent, on A before the kill or B after, except what was on
// A's wire when it died (at most its window, unknown outcomes that stay unknown: never failed over). How long
// the traffic took to move is reported, not asserted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../server/logger.js";
import { startWorker, type Worker } from "../../server/worker.js";
import { insertDueMessages } from "../helpers/messages.js";
import { useTestServer } from "../helpers/server.js";
import { startSmsc, type Smsc } from "../helpers/smsc.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

const N = 10_000;
const WINDOW = 10;
const server = useTestServer({
  ...fastWorkerConfig,
  provider: "smpp",
  connectorRefreshMs: 200,
  smppMaxInFlight: WINDOW,
  smppMaxPerSecond: 100_000,
  smppResponseTimeoutMs: 2_000,
  workerConcurrency: 100,
});
let a: Smsc;
let b: Smsc;
let worker: Worker;

const linkOf = (s: Smsc) => {
  const url = new URL(s.url);
  return { host: url.hostname, port: Number(url.port), systemId: url.username, password: url.password };
};

beforeAll(async () => {
  [a, b] = await Promise.all([startSmsc(), startSmsc()]);
  const s = server();
  worker = await startWorker({ db: s.db, databaseUrl: s.url, log: createLogger(process.env.TEST_LOG_LEVEL ?? "silent"), config: s.config });
});
afterAll(async () => {
  await worker?.stop(1000);
  await b?.close();
});

describe("a carrier killed mid-send", { timeout: 240_000 }, () => {
  it("its traffic continues on the fallback: nothing lost, nothing twice, at most a window unknown", async () => {
    const { request } = await server().operator();
    const make = async (name: string, s: Smsc) =>
      ((await (await request("POST", "/api/v1/connectors", { name, type: "smpp", smpp: linkOf(s) })).json()) as { connectorId: string })
        .connectorId;
    const [ca, cb] = [await make("carrier-a", a), await make("carrier-b", b)];
    const { version } = (await (await request("GET", "/api/v1/routes")).json()) as { version: number };
    const routes = [{ name: "all", match: {}, connectors: [{ connectorId: ca }], fallback: [cb] }];
    expect((await request("PUT", "/api/v1/routes", { version, routes })).status).toBe(200);
    await waitUntil(
      "both bound and routed",
      async () => worker.connectors!.tableVersion === version + 1 && worker.connectors!.list().every((c) => c.up),
    );

    // From the 2,996th submit A holds its answers: those are on the wire when it dies (unknown outcomes).
    a.answer = (_pdu, index) => (index >= 2_995 ? "hold" : 0);
    let movedAt = 0;
    b.afterAnswer = () => (movedAt ||= Date.now());
    const { accountId } = await server().account();
    const to = (i: number) => `+1415562${String(i).padStart(4, "0")}`;
    const ids = await insertDueMessages(server().db, accountId, N, { dueAt: () => new Date(), to });
    await waitUntil("A holding five answers", async () => a.submits.length >= 3_000, 120_000, 5);
    const killedAt = Date.now();
    await a.close();

    // Settled: each message sent, or declared of unknown outcome (on A's wire when it died). A message still
    // `sending` without that mark is on its way to B.
    const settled = await waitUntil(
      "every message sent or of unknown outcome",
      async () => {
        const [row] = await server()
          .db("messages")
          .whereIn("id", ids)
          .select<{ sent: string; unknown: string }[]>(
            server().db.raw("count(*) FILTER (WHERE status = 'sent') AS sent"),
            server().db.raw("count(*) FILTER (WHERE status = 'sending' AND outcome_unknown_at IS NOT NULL) AS unknown"),
          );
        return Number(row!.sent) + Number(row!.unknown) === N ? { unknown: Number(row!.unknown) } : undefined;
      },
      200_000,
    );

    const destinations = (s: Smsc) => s.submits.map((p) => String(p.destination_addr));
    const onA = destinations(a);
    const onB = destinations(b);
    expect(new Set(onA).size).toBe(onA.length);
    expect(new Set(onB).size).toBe(onB.length);
    const both = new Set(onA);
    expect(onB.filter((d) => both.has(d))).toEqual([]);
    expect(onA.length + onB.length).toBe(N);
    // The unknown ones were written to A (so never failed over to B), and stay unknown.
    const unknown = await server().db("messages").whereIn("id", ids).where({ status: "sending" }).select("recipient", "connector_id");
    expect(unknown.length).toBe(settled.unknown);
    expect(unknown.length).toBeGreaterThanOrEqual(5);
    expect(unknown.length).toBeLessThanOrEqual(WINDOW);
    for (const m of unknown) {
      expect(m.connector_id).toBe(ca);
      expect(both.has((m.recipient as string).slice(1))).toBe(true);
    }
    const viaB = Number((await server().db("messages").whereIn("id", ids).where({ connector_id: cb }).count({ n: "*" }))[0]!.n);
    expect(viaB).toBe(onB.length);
    process.stderr.write(
      `routing chaos: A killed with ${onA.length} submits received; ${onB.length} sent through B, the first ${movedAt - killedAt} ms after the kill; ${unknown.length} unknown on A's wire\n`,
    );
  });
});
