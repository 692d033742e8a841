// Receipt deliveries are fair across webhooks: each job's retry is due from its own failure (not when the
// slowest POST of its batch ends), a webhook gets at most WEBHOOK_MAX_IN_FLIGHT deliveries at once (one after
// a few failures) without the waiting ones holding slots or using attempts, and a long failure run disables
// the webhook until it is enabled again.
import { afterAll, describe, expect, it } from "vitest";
import { recordWebhookAttempts } from "../../server/db/webhooks.js";
import { createLogger } from "../../server/logger.js";
import { startReceiver, type Received, type Receiver } from "../helpers/receiver.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer({
  ...fastWorkerConfig,
  webhookRetryBaseMs: 200,
  webhookTimeoutMs: 5000,
  webhookMaxInFlight: 2,
  webhookSlowAfterFailures: 2,
  webhookDisableAfterFailures: 6,
  webhookDisableAfterMs: 0,
});
const logLines: Record<string, unknown>[] = [];
useTestWorker(server, { log: createLogger("info", { write: (line: string) => void logLines.push(JSON.parse(line)) }) });
const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));

async function receiver() {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

async function webhook(a: TestAccount, url: string) {
  const { data } = await a.client.POST("/api/v1/webhooks", { body: { name: "receipts", url } });
  return data!;
}

/** Schedules messages to the simulator's "sent, and no further receipt" number: one dlr.sent each. */
async function sendSoon(a: TestAccount, n = 1): Promise<string[]> {
  const scheduledAt = new Date(Date.now() + 1000).toISOString();
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const { data } = await a.client.POST("/api/v1/scheduler/schedule", {
      body: { to: "+14155550003", body: "x", from: "ACME", scheduledAt },
    });
    ids.push(data!.messageId);
  }
  return ids;
}

/** The most requests a receiver that answers `delayMs` after each arrival had open at once, among `received`. */
function mostOpenAtOnce(received: Received[], delayMs: number): number {
  return Math.max(0, ...received.map((r) => received.filter((o) => o.at <= r.at && r.at < o.at + delayMs).length));
}

describe("fair receipt deliveries", { timeout: 60_000 }, () => {
  it("retries a failed receipt WEBHOOK_RETRY_BASE_MS after its own failure, though a slow neighbour of its batch is still posting", async () => {
    const a = await server().account();
    const [failing, slow] = [await receiver(), await receiver()];
    failing.respond = (_r, i) => ({ status: i === 0 ? 500 : 200 });
    slow.respond = () => ({ status: 200, delayMs: 2500 });
    await webhook(a, failing.url);
    await webhook(a, slow.url);
    await sendSoon(a); // one dlr.sent to each webhook, in one transaction: claimed together
    await failing.waitFor("the retry", (all) => all.length === 2);
    const [first, retry] = failing.received;
    // 200 ms ± 10 % after the failure; the neighbour answers only 2,500 ms after its POST began.
    expect(retry!.at - first!.at).toBeGreaterThanOrEqual(180);
    expect(retry!.at - first!.at).toBeLessThan(1500);
    expect(retry!.at).toBeLessThan(slow.received[0]!.at + 2500);
  });

  it("posts at most WEBHOOK_MAX_IN_FLIGHT receipts to one webhook at once; the others wait without using an attempt", async () => {
    const a = await server().account();
    const r = await receiver();
    r.respond = () => ({ status: 200, delayMs: 600 });
    const hook = await webhook(a, r.url);
    const ids = await sendSoon(a, 6);
    await r.waitFor("every receipt", (all) => all.length === 6);
    expect(mostOpenAtOnce(r.received, 600)).toBe(2);
    await waitUntil("all logged as succeeded", async () => {
      const rows = await server().db("webhook_deliveries").where({ webhook_id: hook.webhookId, status: "succeeded" });
      return rows.length === 6 && rows;
    });
    const rows = await server().db("webhook_deliveries").whereIn("message_id", ids).select("attempts");
    expect(rows.map((x) => x.attempts.length)).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it("slows a failing webhook to one receipt at a time, disables it after a long failure run, and enables it on request", async () => {
    const a = await server().account();
    const r = await receiver();
    let up = false;
    r.respond = () => (up ? { status: 200 } : { status: 500, delayMs: 300 });
    const hook = await webhook(a, r.url);
    // When the database first shows the webhook in a failure run (2 failures): loads after that see cap 1.
    let slowSince: number | undefined;
    const watch = setInterval(() => {
      void server()
        .db("webhooks")
        .where({ id: hook.webhookId })
        .first("consecutive_failures")
        .then((w) => (slowSince ??= w && w.consecutive_failures >= 2 ? Date.now() : undefined));
    }, 20);
    const ids = await sendSoon(a, 4);

    const disabled = await waitUntil("the webhook disabled", async () => {
      const { data } = await a.client.GET("/api/v1/webhooks/{webhookId}", { params: { path: { webhookId: hook.webhookId } } });
      return data!.disabledAt !== null && data;
    });
    expect(disabled.disabledReason).toMatch(/^\d+ consecutive failed delivery attempts since /);
    expect(logLines.find((l) => l.event === "webhook_disabled")).toMatchObject({ webhookId: hook.webhookId, accountId: a.accountId });
    const metrics = await (await fetch(`${server().baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/^webhooks_disabled_total [1-9]/m);
    expect(metrics).toMatch(/^sms_webhooks_disabled [1-9]/m);

    // Once the failure run is recorded, one POST at a time (500 ms for a load that read the count just before).
    clearInterval(watch);
    expect(slowSince).toBeDefined();
    expect(
      mostOpenAtOnce(
        r.received.filter((x) => x.at > slowSince! + 500),
        300,
      ),
    ).toBeLessThanOrEqual(1);

    // Its receipts are not lost: each ends `failed`, the last attempt `webhook_disabled` unless its four
    // attempts ran out first, and nothing more is posted.
    const rows = await waitUntil("every delivery finished", async () => {
      const all = await server().db("webhook_deliveries").whereIn("message_id", ids).select("id", "status", "attempts");
      return all.every((d) => d.status === "failed") && all;
    });
    const disabledOnes = rows.filter((d) => d.attempts.at(-1).error === "webhook_disabled");
    expect(disabledOnes.length).toBeGreaterThan(0);
    const posted = r.received.length;

    up = true;
    const enabled = await a.client.POST("/api/v1/webhooks/{webhookId}/enable", { params: { path: { webhookId: hook.webhookId } } });
    expect(enabled.response.status).toBe(200);
    expect(enabled.data).toMatchObject({ webhookId: hook.webhookId, disabledAt: null, disabledReason: null });
    expect(r.received.length).toBe(posted);
    const { response } = await a.client.POST("/api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver", {
      params: { path: { webhookId: hook.webhookId, deliveryId: disabledOnes[0]!.id } },
    });
    expect(response.status).toBe(202);
    await waitUntil("the redelivery succeeded", async () => {
      const d = await server().db("webhook_deliveries").where({ id: disabledOnes[0]!.id }).first();
      return d.status === "succeeded";
    });
  });

  it("does not rewrite a healthy webhook's row for its successes (every receipt insert locks it for its foreign key)", async () => {
    const a = await server().account();
    const hook = await webhook(a, "https://example.com/receipts");
    const db = server().db;
    const version = async () => (await db.raw("SELECT xmin::text AS v FROM webhooks WHERE id = ?", [hook.webhookId])).rows[0].v as string;
    const disable = { afterFailures: 0, afterMs: 0 };
    const healthy = await version();
    await recordWebhookAttempts(
      db,
      [{ webhookId: hook.webhookId, accountId: a.accountId, failuresSinceSuccess: 0, succeeded: true }],
      disable,
    );
    expect(await version()).toBe(healthy);
    await recordWebhookAttempts(
      db,
      [{ webhookId: hook.webhookId, accountId: a.accountId, failuresSinceSuccess: 2, succeeded: false }],
      disable,
    );
    const failing = await version();
    expect(failing).not.toBe(healthy);
    // The success that ends a failure run is written.
    await recordWebhookAttempts(
      db,
      [{ webhookId: hook.webhookId, accountId: a.accountId, failuresSinceSuccess: 0, succeeded: true }],
      disable,
    );
    expect(await version()).not.toBe(failing);
    expect(await db("webhooks").where({ id: hook.webhookId }).first("consecutive_failures", "failing_since")).toEqual({
      consecutive_failures: 0,
      failing_since: null,
    });
  });

  it("recalls a webhook's receipts snoozed while it was slow as soon as it answers quickly again", async () => {
    const { db } = server();
    const a = await server().account();
    const r = await receiver();
    let slow = true;
    r.respond = () => ({ status: 200, delayMs: slow ? 600 : 0 });
    await webhook(a, r.url);
    const ids = await sendSoon(a, 40);
    // Two at a time at 600 ms each: the rest are snoozed, queued at that pace, seconds ahead.
    const snoozedAhead = () =>
      db("jobs")
        .where({ kind: "deliver_receipt", account_id: a.accountId, state: "available" })
        .where("run_at", ">", db.raw("now() + interval '3 seconds'"))
        .max({ latest: "run_at" })
        .count({ n: "*" })
        .first<{ latest: Date | null; n: string }>();
    await waitUntil("receipts snoozed more than 3 s ahead", async () => Number((await snoozedAhead()).n) >= 10);
    slow = false;
    const flippedAt = Date.now();
    const { latest } = await snoozedAhead();
    await r.waitFor("every receipt", (all) => new Set(all.map((x) => x.json.messageId)).size === ids.length, 30_000);
    // Without the recall none of them could have come before its snooze ended.
    expect(r.received.at(-1)!.at).toBeLessThan(latest!.getTime());
    const recalls = logLines.filter((l) => l.msg === "webhook answers quickly again; its snoozed receipts recalled");
    expect(recalls.length).toBeGreaterThan(0);
    expect(recalls.every((l) => (l.time as number) >= flippedAt)).toBe(true); // not while it was slow
  });

  it("answers 404 for enabling an unknown webhook", async () => {
    const a = await server().account();
    const res = await a.request("POST", "/api/v1/webhooks/00000000-0000-4000-8000-000000000000/enable");
    expect(res.status).toBe(404);
  });
});
