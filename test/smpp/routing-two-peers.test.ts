// Routing between two different SMSCs (docs/ROUTING.md): Net::SMPP's (test/helpers/smsc-peer.pl, which receipts
// every submit) and the smpp package's server (test/helpers/smsc.ts). UK numbers go to the first, the rest to the
// second; by each peer's own log every message reached the one its route names, once, and the Net::SMPP peer's
// receipts came back through its connector to `delivered`.
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../server/logger.js";
import { startWorker, type Worker } from "../../server/worker.js";
import { useTestServer } from "../helpers/server.js";
import { startSmsc, type Smsc } from "../helpers/smsc.js";
import { systemPackagePresent } from "../helpers/systemPackage.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

const available = systemPackagePresent({
  neededBy: "the routing test between two SMSCs",
  file: "/usr/share/perl5/Net/SMPP.pm",
  debianPackage: "libnet-smpp-perl",
});

const server = useTestServer({ ...fastWorkerConfig, provider: "smpp", connectorRefreshMs: 100, smppMaxPerSecond: 1000 });
let peer: ChildProcess | undefined;
let peerLog = "";
let smsc: Smsc | undefined;
let worker: Worker | undefined;

beforeAll(async () => {
  if (!available) return;
  peer = spawn("perl", ["test/helpers/smsc-peer.pl", "100"], { stdio: ["ignore", "pipe", "inherit"] });
  peer.stdout!.on("data", (chunk: Buffer) => (peerLog += chunk.toString()));
  smsc = await startSmsc();
  const s = server();
  worker = await startWorker({ db: s.db, databaseUrl: s.url, log: createLogger(process.env.TEST_LOG_LEVEL ?? "silent"), config: s.config });
});
afterAll(async () => {
  await worker?.stop(1000);
  peer?.kill("SIGKILL");
  await smsc?.close();
});

describe.skipIf(!available)("routing between Net::SMPP's SMSC and the smpp package's", { timeout: 60_000 }, () => {
  it("sends each message to the SMSC its route names, once; receipts come back through their connector", async () => {
    const port = Number((await waitUntil("the peer listening", async () => /LISTENING (\d+)/.exec(peerLog)))[1]);
    const { request } = await server().operator();
    const make = async (name: string, host: string, port: number, systemId: string, password: string) => {
      const res = await request("POST", "/api/v1/connectors", { name, type: "smpp", smpp: { host, port, systemId, password } });
      expect(res.status).toBe(201);
      return ((await res.json()) as { connectorId: string }).connectorId;
    };
    const smscUrl = new URL(smsc!.url);
    const perl = await make("net-smpp", "127.0.0.1", port, "routing", "secret");
    const js = await make("smpp-js", smscUrl.hostname, Number(smscUrl.port), smscUrl.username, smscUrl.password);
    const { version } = (await (await request("GET", "/api/v1/routes")).json()) as { version: number };
    const routes = [
      { name: "uk", match: { countries: ["GB"] }, connectors: [{ connectorId: perl }] },
      { name: "rest", match: {}, connectors: [{ connectorId: js }] },
    ];
    expect((await request("PUT", "/api/v1/routes", { version, routes })).status).toBe(200);
    await waitUntil(
      "both bound and routed",
      async () => worker!.connectors!.tableVersion === version + 1 && worker!.connectors!.list().filter((c) => c.up).length === 2,
    );

    const a = await server().account();
    const uk = Array.from({ length: 10 }, (_, i) => `+4474001235${String(i).padStart(2, "0")}`);
    const us = Array.from({ length: 10 }, (_, i) => `+1415555024${i}`);
    const ids = new Map<string, string>();
    for (const to of [...uk, ...us]) {
      const res = await a.request("POST", "/api/v1/messages", { to, from: "ACME", body: `routed to ${to}` });
      expect(res.status).toBe(201);
      ids.set(to, ((await res.json()) as { messageId: string }).messageId);
    }
    const status = async (to: string) =>
      (await (await a.request("GET", `/api/v1/messages/${ids.get(to)}`)).json()) as { status: string; connectorId: string };
    // The Net::SMPP peer receipts what it gets (UNDELIV for a destination ending in 7, else DELIVRD): the UK
    // messages reach their final status; the others, whose SMSC sends no receipts, stay sent.
    const finalOf = (to: string) => (to.endsWith("7") ? "undelivered" : "delivered");
    await waitUntil("UK final, the rest sent", async () => {
      const uks = await Promise.all(uk.map(status));
      const uss = await Promise.all(us.map(status));
      return uks.every((m, i) => m.status === finalOf(uk[i]!)) && uss.every((m) => m.status === "sent");
    });
    for (const to of uk) expect((await status(to)).connectorId).toBe(perl);
    for (const to of us) expect((await status(to)).connectorId).toBe(js);
    const perlSubmits = [...peerLog.matchAll(/^SUBMIT \S+ (\d+)$/gm)].map((m) => `+${m[1]}`);
    const jsSubmits = smsc!.submits.map((p) => `+${String(p.destination_addr)}`);
    expect(perlSubmits.sort()).toEqual([...uk].sort());
    expect(jsSubmits.sort()).toEqual([...us].sort());
  });
});
