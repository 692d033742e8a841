// A burst routed by the routing table to a rate-limited SMPP connector is written as the link's rate lets each
// part of it go, not after the whole window's share of the rate (issue 59, item 29: a batch of 250 waited about
// 2 s before its first submit_sm). Judged by how the submits arrive at the SMSC, never by a timer: written after
// one wait for the whole window, a window's submits arrive together; written part by part, a few at a time.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../server/logger.js";
import { startWorker, type Worker } from "../../server/worker.js";
import { useTestServer } from "../helpers/server.js";
import { startSmsc, type Smsc } from "../helpers/smsc.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

const RATE = 50;
const BURST = 60;
// The worker's window holds the whole burst, so one claim takes it: the case the defect was about.
const server = useTestServer({
  ...fastWorkerConfig,
  provider: "smpp",
  connectorRefreshMs: 100,
  smppMaxPerSecond: RATE,
  smppMaxInFlight: 100,
});
let smsc: Smsc;
let worker: Worker;

beforeAll(async () => {
  smsc = await startSmsc();
  const s = server();
  worker = await startWorker({ db: s.db, databaseUrl: s.url, log: createLogger(process.env.TEST_LOG_LEVEL ?? "silent"), config: s.config });
  const operator = (await s.operator()).request;
  const url = new URL(smsc.url);
  const created = await operator("POST", "/api/v1/connectors", {
    name: "carrier",
    type: "smpp",
    smpp: { host: url.hostname, port: Number(url.port), systemId: url.username, password: url.password },
  });
  expect(created.status).toBe(201);
  const { connectorId } = (await created.json()) as { connectorId: string };
  const { version } = (await (await operator("GET", "/api/v1/routes")).json()) as { version: number };
  const put = await operator("PUT", "/api/v1/routes", {
    version,
    routes: [
      // Two routes: each message is routed once claimed (with one catch-all route the claim would record the
      // connector itself, and wait for the window's rate before it, the messages still scheduled).
      { name: "uk", match: { prefixes: ["+44"] }, connectors: [{ connectorId }] },
      { name: "all", match: {}, connectors: [{ connectorId }] },
    ],
  });
  expect(put.status).toBe(200);
  await waitUntil(
    "the worker routes by the table, its connector bound",
    async () => worker.connectors!.tableVersion === version + 1 && worker.connectors!.list().some((c) => c.id === connectorId && c.up),
  );
});
afterAll(async () => {
  await worker?.stop(1000);
  await smsc?.close();
});

describe("a routed burst", () => {
  it("is written part by part at the link's rate: the first submit_sm does not wait for the burst's last slot", async () => {
    const account = await server().account();
    const before = smsc.submits.length;
    const res = await account.request("POST", "/api/v1/messages/batch", {
      messages: Array.from({ length: BURST }, (_, i) => ({ to: `+1415555${String(3000 + i)}`, from: "ACME", body: `burst ${i}` })),
    });
    expect(res.status).toBe(200);
    await waitUntil("every message of the burst written", async () => (smsc.submits.length - before >= BURST ? true : undefined), 30_000);
    const times = smsc.submitTimes.slice(before, before + BURST);
    // The most submits that arrived within 30 ms of each other. One wait for the whole window, then every
    // write at once: a whole window (20 here, the send batch), its first message kept waiting for its last
    // one's slot. Part by part: what the rate lets go in 100 ms (5 at 50/s), or two parts together when the
    // worker fell behind its slots.
    const together = Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 30).length));
    expect(together).toBeLessThanOrEqual(10);
    expect(times.at(-1)! - times[0]!).toBeGreaterThan((0.5 * (BURST - 1) * 1000) / RATE);
    // Each message written once.
    expect(new Set(smsc.submits.slice(before).map((p) => p.destination_addr)).size).toBe(BURST);
  });
});
