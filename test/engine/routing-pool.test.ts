// A route's weighted pool and a connector's cap (docs/ROUTING.md), with two simulator connectors and two
// in-process workers: 10,000 messages split 70/30 by weight (within ±3 points; the binomial's standard deviation
// is 0.46 points, so chance never fails it), and a connector capped at 20 segments a second holding its cap
// across both workers (the same tolerance as an account's cap, test/helpers/throughput.ts), each message it
// refuses waiting for a turn of its own.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../server/logger.js";
import { startWorker, type Worker } from "../../server/worker.js";
import { useTestServer } from "../helpers/server.js";
import { expectWithinCap, insertMessages, submissionsOf } from "../helpers/throughput.js";
import { countSnoozes, snoozesOf } from "../helpers/snoozes.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

const server = useTestServer({ ...fastWorkerConfig, connectorRefreshMs: 100, workerConcurrency: 200 });
const workers: Worker[] = [];

const operator = async () => (await server().operator()).request;
async function simulatorConnector(name: string, maxSegmentsPerSecond: number | null = null): Promise<string> {
  const res = await (await operator())("POST", "/api/v1/connectors", { name, type: "simulator", maxSegmentsPerSecond });
  expect(res.status).toBe(201);
  return ((await res.json()) as { connectorId: string }).connectorId;
}
async function putRoutes(routes: unknown[]): Promise<void> {
  const request = await operator();
  const { version } = (await (await request("GET", "/api/v1/routes")).json()) as { version: number };
  expect((await request("PUT", "/api/v1/routes", { version, routes })).status).toBe(200);
  await waitUntil("both workers route by the new table", async () => workers.every((w) => w.connectors!.tableVersion === version + 1));
}
const sentAll = (ids: string[], timeoutMs = 60_000) =>
  waitUntil(
    `${ids.length} messages sent`,
    async () =>
      Number(
        (await server().db("messages").whereIn("id", ids).whereIn("status", ["sent", "delivered", "failed"]).count({ n: "*" }))[0]!.n,
      ) === ids.length,
    timeoutMs,
  );

beforeAll(async () => {
  const s = server();
  for (let i = 0; i < 2; i++)
    workers.push(
      await startWorker({ db: s.db, databaseUrl: s.url, log: createLogger(process.env.TEST_LOG_LEVEL ?? "silent"), config: s.config }),
    );
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop(2_000)));
});

describe("a route's pool", () => {
  it("splits 10,000 messages 70/30 by weight, each handed over once", { timeout: 120_000 }, async () => {
    const [heavy, light] = [await simulatorConnector("seventy"), await simulatorConnector("thirty")];
    await putRoutes([
      {
        name: "split",
        match: {},
        connectors: [
          { connectorId: heavy, weight: 70 },
          { connectorId: light, weight: 30 },
        ],
      },
    ]);
    const { accountId } = await server().account();
    const ids = await insertMessages(
      server().db,
      accountId,
      Array.from({ length: 10_000 }, () => ({})),
    );
    await sentAll(ids, 110_000);
    const rows = await server()
      .db("messages")
      .whereIn("id", ids)
      .groupBy("connector_id")
      .select<{ connectorId: string; n: string }[]>("connector_id as connectorId", server().db.raw("count(*) AS n"));
    const count = new Map(rows.map((r) => [r.connectorId, Number(r.n)]));
    expect((count.get(heavy) ?? 0) + (count.get(light) ?? 0)).toBe(10_000);
    expect(count.get(heavy)! / 10_000).toBeGreaterThan(0.67);
    expect(count.get(heavy)! / 10_000).toBeLessThan(0.73);
    expect((await submissionsOf(server().db, ids)).length).toBe(10_000);
  });

  it("a capped connector holds its cap across two workers, each waiting message woken for its own turn", { timeout: 60_000 }, async () => {
    const db = server().db;
    await countSnoozes(db);
    const capped = await simulatorConnector("capped", 20);
    await putRoutes([{ name: "capped", match: {}, connectors: [{ connectorId: capped }] }]);
    const { accountId } = await server().account();
    const start = Date.now() + 500;
    const ids = await insertMessages(
      db,
      accountId,
      // Due over two seconds, at five times the cap: windows claimed one after another, each refused.
      Array.from({ length: 100 }, (_, i) => ({ dueAt: new Date(start + i * 20) })),
    );
    await sentAll(ids);
    expect(Number((await db("messages").whereIn("id", ids).where({ connector_id: capped }).count({ n: "*" }))[0]!.n)).toBe(100);
    expectWithinCap(await submissionsOf(db, ids), 20);
    // Each refused message is given a turn of its own (docs/ROUTING.md, "Connector caps") and comes back for it:
    // snoozed about once. Turns computed from the bucket alone gave windows refused together the same turns, so
    // all but one were refused again each time (about seven snoozes a message here).
    expect((await snoozesOf(db, ids)) / ids.length).toBeLessThan(3);
  });

  it("a cap raised applies at once to the messages already waiting for their turns", { timeout: 60_000 }, async () => {
    const db = server().db;
    const slow = await simulatorConnector("slow", 1);
    await putRoutes([{ name: "slow", match: {}, connectors: [{ connectorId: slow }] }]);
    const { accountId } = await server().account();
    const ids = await insertMessages(
      db,
      accountId,
      Array.from({ length: 30 }, () => ({})),
    );
    // At 1 segment a second the last of them has a turn about 30 s ahead.
    await waitUntil("the first two sent", async () => (await submissionsOf(db, ids)).length >= 2);
    const res = await (await operator())("PATCH", `/api/v1/connectors/${slow}`, { maxSegmentsPerSecond: null });
    expect(res.status).toBe(200);
    // Woken once every worker has applied the change (CONNECTOR_REFRESH_MS, 100 ms here), not at their old turns.
    await sentAll(ids, 15_000);
    expect((await submissionsOf(db, ids)).length).toBe(30);
  });
});
