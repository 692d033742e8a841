// Fair shares between accounts through real workers and the simulator: account A's 10,000 `high` campaign
// messages due at one instant do not hold up account B's ordinary messages due just after. Counted, not timed:
// how many of A's messages went to the provider after B's were due but before B's last one (at most what the
// workers had claimed already, plus one window), and how many of A's were still waiting then (B overtook them).
// Rerun with two connectors sharing the traffic 50/50 (docs/ROUTING.md): routing after the claim keeps the shares.
import { afterEach, describe, expect, it } from "vitest";
import type { Db } from "../../server/db/knex.js";
import { createLogger } from "../../server/logger.js";
import { startWorker, type Worker } from "../../server/worker.js";
import { useTestServer } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

const CONCURRENCY = 100; // and the prefetch: one window of a worker's claim
const server = useTestServer({ ...fastWorkerConfig, workerConcurrency: CONCURRENCY });
let workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.map((w) => w.stop(5_000)));
  workers = [];
});

const submittedOf = async (db: Db, accountId: string) =>
  Number(
    (
      await db("simulator_submissions as s")
        .join("messages as m", "m.id", "s.message_id")
        .where("m.account_id", accountId)
        .count({ n: "*" })
    )[0]!.n,
  );

/** The catch-all route made a 50/50 pool of the `default` simulator connector and a second one. */
async function splitBetweenTwoConnectors(): Promise<void> {
  const { request } = await server().operator();
  const list = (await (await request("GET", "/api/v1/connectors")).json()) as { data: { connectorId: string; name: string }[] };
  const first = list.data.find((c) => c.name === "default")!.connectorId;
  const made = await request("POST", "/api/v1/connectors", { name: `second-${Date.now()}`, type: "simulator" });
  const second = ((await made.json()) as { connectorId: string }).connectorId;
  const { version } = (await (await request("GET", "/api/v1/routes")).json()) as { version: number };
  const routes = [{ name: "split", match: {}, connectors: [{ connectorId: first }, { connectorId: second }] }];
  expect((await request("PUT", "/api/v1/routes", { version, routes })).status).toBe(200);
  await waitUntil("the workers route by the split", async () => workers.every((w) => w.connectors!.tableVersion === version + 1));
}

describe("fair shares between accounts", { timeout: 120_000 }, () => {
  for (const [count, connectors] of [
    [1, 1],
    [2, 1],
    [2, 2],
  ] as const) {
    it(`with ${count} worker(s) and ${connectors} connector(s), B's messages due just after A's 10,000 high ones are sent within the first windows`, async () => {
      const s = server();
      for (let i = 0; i < count; i++) {
        workers.push(await startWorker({ db: s.db, databaseUrl: s.url, log: createLogger("silent"), config: s.config }));
      }
      if (connectors === 2) await splitBetweenTwoConnectors();
      const a = await s.account();
      const b = await s.account();
      const burstAt = new Date(Date.now() + 3_000);
      const recipients = Array.from({ length: 10_000 }, (_, i) => `+1415${String(5_000_000 + i)}`);
      const { data: campaign, response } = await a.client.POST("/api/v1/campaigns", {
        body: { name: "burst", message: "sale", type: "scheduled", scheduledAt: burstAt.toISOString(), recipients, priority: "high" },
      });
      expect(response.status).toBe(201);
      // Due just after A's burst. On a machine slow enough that storing the 10,000 took nearly to it, two seconds
      // from now instead, while A's burst is being sent: the server, busy with the burst, checks a schedule's
      // time a moment after it is sent, and refuses one already past (422; seen with half a second).
      const bDueAt = new Date(Math.max(burstAt.getTime() + 500, Date.now() + 2_000));
      for (let i = 0; i < 5; i++) {
        const { response: r, error } = await b.client.POST("/api/v1/scheduler/schedule", {
          body: { to: `+1415555${String(7000 + i)}`, body: "your code", from: "ACME", scheduledAt: bDueAt.toISOString() },
        });
        expect(r.status, JSON.stringify(error)).toBe(201);
      }

      await waitUntil("B's messages submitted", async () => (await submittedOf(s.db, b.accountId)) === 5, 60_000);
      const [row] = await s.db
        .raw(
          `WITH subs AS (SELECT s.id, s.submitted_at, m.account_id FROM simulator_submissions s JOIN messages m ON m.id = s.message_id
                        WHERE m.account_id IN (?, ?)),
              b_last AS (SELECT max(id) AS id FROM subs WHERE account_id = ?)
         SELECT count(*) FILTER (WHERE subs.submitted_at >= ?) AS behind, count(*) AS before
           FROM subs, b_last WHERE subs.account_id = ? AND subs.id < b_last.id`,
          [a.accountId, b.accountId, b.accountId, bDueAt.toISOString(), a.accountId],
        )
        .then((r: { rows: { behind: string; before: string }[] }) => r.rows);
      // What each worker held when B's messages came due (its queue and its running batch), and one window more.
      expect(Number(row!.behind)).toBeLessThanOrEqual(count * 3 * CONCURRENCY);
      expect(10_000 - Number(row!.before)).toBeGreaterThanOrEqual(1_000);
      if (connectors === 2) {
        const used = await s.db("messages").where({ account_id: a.accountId }).whereNotNull("connector_id").distinct("connector_id");
        expect(used).toHaveLength(2);
      }
      await a.client.POST("/api/v1/campaigns/{campaignId}/cancel", { params: { path: { campaignId: campaign!.campaignId } } });
    });
  }
});
