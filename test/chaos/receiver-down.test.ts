// One account's receiver hangs (accepts, never answers) and then comes back: the other account's receipts
// flow meanwhile, and the hanging one's deliveries resume on their retry schedule and all succeed.
import { afterAll, describe, expect, it } from "vitest";
import { startReceiver, type Receiver } from "../helpers/receiver.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer({ ...fastWorkerConfig, webhookTimeoutMs: 1000, webhookRetryBaseMs: 500 });
useTestWorker(server);
const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));

async function scheduleMany(a: TestAccount, n: number, prefix: string): Promise<string[]> {
  // Far enough ahead that 30 requests on a loaded machine (the whole suite runs in parallel) are all made
  // before it: a past scheduledAt is a 422.
  const at = new Date(Date.now() + 4000).toISOString();
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { data } = await a.client.POST("/api/v1/scheduler/schedule", {
      body: { to: `+1415555${prefix}${String(i).padStart(2, "0")}`, body: "x", from: "ACME", scheduledAt: at },
    });
    ids.push(data!.messageId);
  }
  return ids;
}

describe("a dead receiver", { timeout: 120_000 }, () => {
  it("does not hold up another account's receipts, and its own resume when it is back", async () => {
    const a = await server().account();
    const b = await server().account();
    const [ra, rb] = [await startReceiver(), await startReceiver()];
    receivers.push(ra, rb);
    let aUp = false;
    ra.respond = () => (aUp ? { status: 200 } : { status: 200, delayMs: 60_000 }); // hangs past the timeout
    await a.client.POST("/api/v1/webhooks", { body: { name: "dead", url: ra.url } });
    await b.client.POST("/api/v1/webhooks", { body: { name: "alive", url: rb.url } });
    const [aIds, bIds] = await Promise.all([scheduleMany(a, 30, "31"), scheduleMany(b, 30, "32")]);

    // Every one of B's receipts (sent and delivered) arrives while A's receiver still hangs.
    // Receipts are delivered at least once: a POST that B answered after the 1 s timeout (a loaded machine) is
    // sent again with the same webhook-id. Each receipt is counted once, by that id.
    const distinct = (all: typeof rb.received) => new Set(all.map((r) => r.headers["webhook-id"])).size;
    await rb.waitFor("all of B's receipts", (all) => distinct(all) >= bIds.length * 2, 30_000);
    const aSucceeded = await server().db("webhook_deliveries").whereIn("message_id", aIds).where({ status: "succeeded" }).count({ n: "*" });
    expect(Number(aSucceeded[0]!.n)).toBe(0);
    expect(distinct(rb.received)).toBe(bIds.length * 2);

    aUp = true;
    await waitUntil(
      "all of A's receipts delivered",
      async () => {
        const rows = await server()
          .db("webhook_deliveries")
          .whereIn("message_id", aIds)
          .whereNot({ status: "succeeded" })
          .count({ n: "*" });
        const total = await server().db("webhook_deliveries").whereIn("message_id", aIds).count({ n: "*" });
        return Number(rows[0]!.n) === 0 && Number(total[0]!.n) === aIds.length * 2;
      },
      60_000,
    );
    const deliveries = await server().db("webhook_deliveries").whereIn("message_id", aIds).select("event", "attempts");
    let timedOut = 0;
    for (const { event, attempts } of deliveries) {
      expect(attempts.length).toBeLessThanOrEqual(4);
      if (event === "dlr.sent") {
        // Either it timed out against the hanging receiver and was retried on schedule until it was back, or
        // it waited (snoozed, no attempt used) behind the webhook's cap of POSTs in flight and went out once.
        for (const failed of attempts.slice(0, -1)) expect(failed.error).toMatch(/no answer within 1000 ms/);
        if (attempts.length >= 2) timedOut++;
      } else {
        // dlr.delivered waited, parked behind dlr.sent, and went out once that one succeeded.
        expect(attempts.length).toBe(1);
      }
    }
    expect(timedOut).toBeGreaterThan(0);
  });
});
