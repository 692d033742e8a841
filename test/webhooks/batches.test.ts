// Batched webhooks: `batch: { maxEvents, maxDelayMs }` posts `{ "events": [ … ] }`, signed as one body, one
// batch per webhook in flight, oldest events first, retried whole after a failure.
import { Webhook } from "standardwebhooks";
import { afterAll, describe, expect, it } from "vitest";
import { verifyReceipt } from "../../client/index.js";
import { startReceiver, type Receiver } from "../helpers/receiver.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer({ ...fastWorkerConfig, webhookRetryBaseMs: 300, webhookTimeoutMs: 1000 });
useTestWorker(server);
const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));

async function receiver() {
  const r = await startReceiver();
  receivers.push(r);
  return r;
}

type Batch = { maxEvents: number; maxDelayMs: number } | null;

async function webhook(a: TestAccount, url: string, batch: Batch) {
  const res = await a.request("POST", "/api/v1/webhooks", { name: "batched", url, batch });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as { webhookId: string; secret: string; batch: Batch };
}

/** `n` messages to distinct numbers in one batch request; their ids. */
async function send(a: TestAccount, n: number, first = 2000): Promise<string[]> {
  const res = await a.request("POST", "/api/v1/messages/batch", {
    messages: Array.from({ length: n }, (_, i) => ({ to: `+1415556${String(first + i).padStart(4, "0")}`, from: "ACME", body: `m ${i}` })),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const body = (await res.json()) as { results: { messageId?: string }[] };
  return body.results.map((r) => r.messageId!);
}

type Event = { deliveryId: string; event: string; messageId: string; status: string };
const eventsOf = (r: Receiver) => r.received.flatMap((x) => (x.json.events as Event[] | undefined) ?? []);

describe("batched webhooks", () => {
  it("posts 600 receipts as a handful of signed batches of at most maxEvents, each message's in status order, with no job", async () => {
    const { db } = server();
    const a = await server().account();
    const r = await receiver();
    const hook = await webhook(a, r.url, { maxEvents: 100, maxDelayMs: 1000 });
    expect(hook.batch).toEqual({ maxEvents: 100, maxDelayMs: 1000 });
    const jobsBefore = Number((await db("jobs").where({ kind: "deliver_receipt", account_id: a.accountId }).count({ n: "*" }))[0]!.n);
    const ids = await send(a, 300);
    await r.waitFor("600 events", () => eventsOf(r).length >= 600, 60_000);
    const events = eventsOf(r);
    // Exactly once each here (nothing failed), every one of this account's messages, sent before delivered.
    expect(new Set(events.map((e) => e.deliveryId)).size).toBe(600);
    expect(events).toHaveLength(600);
    for (const id of ids) expect(events.filter((e) => e.messageId === id).map((e) => e.event)).toEqual(["dlr.sent", "dlr.delivered"]);
    expect(r.received.length).toBeLessThanOrEqual(20);
    const wh = new Webhook(hook.secret.replace(/^whsec_/, ""));
    for (const post of r.received) {
      expect((post.json.events as Event[]).length).toBeLessThanOrEqual(100);
      expect(verifyReceipt(Buffer.from(post.body), post.headers, hook.secret)).toBe(true);
      expect(() => wh.verify(post.body, post.headers as Record<string, string>)).not.toThrow();
      // The event as posted one at a time, with its delivery id first.
      expect(Object.keys((post.json.events as Event[])[0]!)[0]).toBe("deliveryId");
    }
    const rows = await waitUntil("every delivery recorded", async () => {
      const all = await db("webhook_deliveries")
        .where({ account_id: a.accountId, webhook_id: hook.webhookId })
        .select("status", "attempts");
      return all.length === 600 && all.every((d) => d.status === "succeeded") ? all : undefined;
    });
    expect(rows.every((d) => d.attempts.length === 1)).toBe(true);
    const jobsAfter = Number((await db("jobs").where({ kind: "deliver_receipt", account_id: a.accountId }).count({ n: "*" }))[0]!.n);
    expect(jobsAfter).toBe(jobsBefore);
  });

  it("a failed batch is retried whole after its backoff, the same events under the same id, each attempt in the log", async () => {
    const a = await server().account();
    const r = await receiver();
    r.respond = (_req, i) => ({ status: i === 0 ? 503 : 200 });
    const hook = await webhook(a, r.url, { maxEvents: 4, maxDelayMs: 300 });
    await send(a, 2, 3000);
    await r.waitFor("the retry", (all) => all.length >= 2 && eventsOf(r).length >= 4 + (all[0]!.json.events as Event[]).length);
    const [failed, retried] = r.received;
    const firstEvents = (failed!.json.events as Event[]).map((e) => e.deliveryId);
    expect((retried!.json.events as Event[]).map((e) => e.deliveryId).slice(0, firstEvents.length)).toEqual(firstEvents);
    if ((retried!.json.events as Event[]).length === firstEvents.length)
      expect(retried!.headers["webhook-id"]).toBe(failed!.headers["webhook-id"]);
    // The backoff of attempt 1 (300 ms ± 10 %) before the retry.
    expect(retried!.at - failed!.at).toBeGreaterThanOrEqual(250);
    const res = await a.request("GET", `/api/v1/webhooks/${hook.webhookId}/deliveries?status=succeeded`);
    const log = (await res.json()) as { data: { deliveryId: string; attempts: { responseStatus: number | null }[] }[] };
    const retriedLog = log.data.filter((d) => firstEvents.includes(d.deliveryId));
    expect(retriedLog.map((d) => d.attempts.map((x) => x.responseStatus))).toEqual(firstEvents.map(() => [503, 200]));
  });

  it("a batch held by a worker that died goes out once its hold runs out", async () => {
    const { db } = server();
    const a = await server().account();
    const r = await receiver();
    const hook = await webhook(a, r.url, { maxEvents: 10, maxDelayMs: 0 });
    await db("webhooks")
      .where({ id: hook.webhookId })
      .update({ batch_held_by: "dead-worker", batch_held_until: db.raw("now() + interval '1.5 seconds'") });
    const heldAt = Date.now();
    await send(a, 1, 3100);
    await r.waitFor("the events", () => eventsOf(r).length === 2);
    expect(r.received[0]!.at - heldAt).toBeGreaterThanOrEqual(1400);
  });

  it("the test operation posts a batch of one; batching turned off sends what waits one event per POST", async () => {
    const { db } = server();
    const a = await server().account();
    const r = await receiver();
    const hook = await webhook(a, r.url, { maxEvents: 50, maxDelayMs: 60_000 });
    const test = await a.request("POST", `/api/v1/webhooks/${hook.webhookId}/test`);
    expect(test.status).toBe(200);
    expect((r.received[0]!.json.events as Event[]).map((e) => e.event)).toEqual(["dlr.test"]);
    expect(verifyReceipt(Buffer.from(r.received[0]!.body), r.received[0]!.headers, hook.secret)).toBe(true);
    // A minute's delay: the receipts wait for their batch.
    const [id] = await send(a, 1, 3200);
    await waitUntil("both receipts waiting", async () => {
      const n = await db("webhook_deliveries").where({ webhook_id: hook.webhookId, status: "pending" }).count({ n: "*" });
      return Number(n[0]!.n) === 2;
    });
    expect(r.received).toHaveLength(1);
    const off = await a.request("PATCH", `/api/v1/webhooks/${hook.webhookId}`, { batch: null });
    expect(off.status).toBe(200);
    expect(((await off.json()) as { batch: Batch }).batch).toBeNull();
    await r.waitFor("the two receipts, one per POST", (all) => all.filter((x) => x.json.messageId === id).length === 2);
    expect(r.received.slice(1).map((x) => x.json.event)).toEqual(["dlr.sent", "dlr.delivered"]);
  });

  it("refuses a batch out of range or with unknown fields (400), and shows null for a webhook without one", async () => {
    const a = await server().account();
    for (const batch of [
      { maxEvents: 1001, maxDelayMs: 0 },
      { maxEvents: 0, maxDelayMs: 0 },
      { maxEvents: 5, maxDelayMs: 60_001 },
      { maxEvents: 5 },
      { maxEvents: 5, maxDelayMs: 1, size: 2 },
    ]) {
      const res = await a.request("POST", "/api/v1/webhooks", { name: "bad", url: "http://127.0.0.1:9/dlr", batch });
      expect(res.status, JSON.stringify(batch)).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/application\/problem\+json/);
    }
    const plain = await a.request("POST", "/api/v1/webhooks", { name: "plain", url: "http://127.0.0.1:9/dlr" });
    expect(((await plain.json()) as { batch: Batch }).batch).toBeNull();
  });
});
