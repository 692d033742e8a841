// The attack of a tenant with receivers that never answer: one account's dead webhooks plus a campaign must
// not delay another account's scheduled sends or its receipts. Each case measures the other account's send
// lateness and dlr.sent latency in a quiet run first, then under the attack, in the same test and process.
import { afterAll, describe, expect, it } from "vitest";
import { startReceiver, type Receiver } from "../helpers/receiver.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

// A 3 s timeout: long enough that a slot held by a hanging POST shows far above the floor below.
const server = useTestServer({ ...fastWorkerConfig, webhookTimeoutMs: 3000, webhookRetryBaseMs: 500, maxWebhooksPerAccount: 20 });
useTestWorker(server);
const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));

async function receiver(hang: boolean): Promise<Receiver> {
  const r = await startReceiver();
  if (hang) r.respond = () => ({ status: 200, delayMs: 120_000 }); // accepts, never answers in time
  receivers.push(r);
  return r;
}

/**
 * Account B's view: K messages scheduled 2 s ahead (to the simulator's "sent, no further receipt" number);
 * returns the worst send lateness (sent_at − scheduledAt) and the worst dlr.sent latency (arrival at B's
 * receiver − scheduledAt), in ms.
 */
async function measureB(b: TestAccount, rb: Receiver): Promise<{ sendLateMs: number; receiptLateMs: number }> {
  const K = 5;
  // Each 2 s after its own request: under load, five requests in a row can take longer than that.
  const scheduled = await Promise.all(
    Array.from({ length: K }, async () => {
      const at = new Date(Date.now() + 2000);
      const { data, error } = await b.client.POST("/api/v1/scheduler/schedule", {
        body: { to: "+14155550003", body: "x", from: "ACME", scheduledAt: at.toISOString() },
      });
      if (!data) throw new Error(`schedule failed: ${JSON.stringify(error)}`);
      return { id: data.messageId, at: at.getTime() };
    }),
  );
  const atOf = new Map(scheduled.map((m) => [m.id, m.at]));
  const arrived = await rb.waitFor("B's receipts", (all) => scheduled.every((m) => all.some((r) => r.json.messageId === m.id)), 60_000);
  const rows: { id: string; sent_at: Date }[] = await server()
    .db("messages")
    .whereIn("id", [...atOf.keys()])
    .select("id", "sent_at");
  return {
    sendLateMs: Math.max(...rows.map((r) => r.sent_at.getTime() - atOf.get(r.id)!)),
    receiptLateMs: Math.max(
      ...arrived.filter((r) => atOf.has(r.json.messageId as string)).map((r) => r.at - atOf.get(r.json.messageId as string)!),
    ),
  };
}

/**
 * "Within 2× of the quiet run", plus a floor. Quiet figures are tens of ms, the size of timer, GC and
 * scheduling jitter, and the attacker's own legitimate work (its sends, its receipts' bookkeeping) shares the
 * CPU and the database with B in this one process: on a loaded 2-core machine (load average 10 measured
 * while this was written) that alone moved B's figures by up to ~800 ms between two runs. A floor of 1 s
 * keeps the test from failing by chance and still fails by a factor of ten against what the attack did
 * before lanes and per-job slots (B's send 10.9 s late, its receipt 15.2 s; minutes with bigger campaigns).
 */
const FLOOR_MS = 1000;
const withinQuiet = (quiet: number) => 2 * Math.max(quiet, 0) + FLOOR_MS;

/**
 * A's campaign to `n` recipients, waited for until every message is delivered: what B then competes with is the
 * dead receivers' deliveries and retries (the slow I/O this is about), not the campaign's own sends, which
 * share B's lane in due-time order by design.
 */
async function campaign(a: TestAccount, n: number, prefix: string): Promise<void> {
  // From suffix 0100: the simulator gives 0001-0003 special outcomes (rejected, undelivered, no report).
  const recipients = Array.from({ length: n }, (_, i) => `+1415${prefix}${String(100 + i).padStart(4, "0")}`);
  const res = await a.request("POST", "/api/v1/campaigns", { name: "flood", message: "x", type: "instant", recipients });
  expect(res.status).toBe(201);
  await waitUntil(
    "A's campaign delivered",
    async () => {
      const [row] = await server().db("messages").where({ account_id: a.accountId, status: "delivered" }).count({ n: "*" });
      return Number(row!.n) === n;
    },
    60_000,
    100,
  );
}

describe("a tenant whose receivers never answer", { timeout: 180_000 }, () => {
  it("one dead webhook and a 300-recipient campaign do not delay another account's sends or receipts", async () => {
    const [a, b] = [await server().account(), await server().account()];
    const [ra, rb] = [await receiver(true), await receiver(false)];
    await a.client.POST("/api/v1/webhooks", { body: { name: "dead", url: ra.url } });
    await b.client.POST("/api/v1/webhooks", { body: { name: "alive", url: rb.url } });
    const quiet = await measureB(b, rb);

    await campaign(a, 300, "555");
    await ra.waitFor("A's receipts hanging", (all) => all.length >= 5, 30_000);
    const attacked = await measureB(b, rb);
    expect(attacked.sendLateMs, JSON.stringify({ quiet, attacked })).toBeLessThanOrEqual(withinQuiet(quiet.sendLateMs));
    expect(attacked.receiptLateMs, JSON.stringify({ quiet, attacked })).toBeLessThanOrEqual(withinQuiet(quiet.receiptLateMs));
    // The dead receiver was being sent A's receipts meanwhile, a few at a time: the attack was on.
    expect(await countPending(a)).toBeGreaterThan(0);
  });

  it("20 webhooks of which 19 never answer do not delay another account, nor the account's own healthy webhook", async () => {
    const [a, b] = [await server().account(), await server().account()];
    const rb = await receiver(false);
    await b.client.POST("/api/v1/webhooks", { body: { name: "alive", url: rb.url } });
    const healthy = await receiver(false);
    const dead = await Promise.all(Array.from({ length: 19 }, () => receiver(true)));
    for (const [i, r] of dead.entries()) await a.client.POST("/api/v1/webhooks", { body: { name: `dead-${i}`, url: r.url } });
    await a.client.POST("/api/v1/webhooks", { body: { name: "healthy", url: healthy.url } });
    const quiet = await measureB(b, rb);

    // 20 recipients: 400 receipts, the same order as the first case's 300, spread over 20 webhooks. (The
    // receipts a campaign makes are its recipients × its webhooks, written by its own sends in the default
    // lane: that cost is the account's own, and the webhook limit bounds it.)
    await campaign(a, 20, "556");
    await waitUntil("every dead receiver hit", async () => dead.every((r) => r.received.length > 0), 30_000);
    const attacked = await measureB(b, rb);
    expect(attacked.sendLateMs, JSON.stringify({ quiet, attacked })).toBeLessThanOrEqual(withinQuiet(quiet.sendLateMs));
    expect(attacked.receiptLateMs, JSON.stringify({ quiet, attacked })).toBeLessThanOrEqual(withinQuiet(quiet.receiptLateMs));
    // A's healthy webhook gets every dlr.sent of the campaign while its 19 siblings hang.
    await healthy.waitFor("A's healthy webhook served", (all) => all.filter((r) => r.json.event === "dlr.sent").length === 20, 30_000);
    expect(await countPending(a)).toBeGreaterThan(0);
  });
});

async function countPending(a: TestAccount): Promise<number> {
  const [row] = await server().db("webhook_deliveries").where({ account_id: a.accountId, status: "pending" }).count({ n: "*" });
  return Number(row!.n);
}
