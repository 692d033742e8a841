import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterAll, describe, expect, it } from "vitest";
import { verifyReceipt } from "../../client/index.js";
import { startReceiver, type Receiver } from "../helpers/receiver.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer({ ...fastWorkerConfig, webhookRetryBaseMs: 200, webhookTimeoutMs: 500 });
useTestWorker(server);
const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));

async function receiver(path?: string) {
  const r = await startReceiver(path);
  receivers.push(r);
  return r;
}

async function webhook(a: TestAccount, url: string) {
  const { data } = await a.client.POST("/api/v1/webhooks", { body: { name: "receipts", url } });
  return data!;
}

async function sendSoon(a: TestAccount, to = "+14155550123") {
  const { data } = await a.client.POST("/api/v1/messages", {
    body: { to, body: "hello", from: "ACME" },
  });
  return data!.messageId;
}

const forMessage = (r: Receiver, messageId: string) => r.received.filter((x) => x.json.messageId === messageId);

describe("delivery receipts", () => {
  it("a receipt answered at its first attempt never has a job row: the worker that made it holds it by its own lease", async () => {
    const { db } = server();
    // Records every receipt job inserted, by a trigger of this file's database.
    await db.raw("CREATE TABLE test_receipt_jobs (delivery_id uuid NOT NULL)");
    await db.raw(`CREATE FUNCTION test_receipt_job() RETURNS trigger LANGUAGE plpgsql AS $$
                  BEGIN INSERT INTO test_receipt_jobs VALUES ((NEW.payload->>'deliveryId')::uuid); RETURN NULL; END $$`);
    await db.raw(`CREATE TRIGGER test_receipt_job AFTER INSERT ON jobs FOR EACH ROW
                  WHEN (NEW.kind = 'deliver_receipt') EXECUTE FUNCTION test_receipt_job()`);
    const a = await server().account();
    const r = await receiver();
    await webhook(a, r.url);
    const messageId = await sendSoon(a);
    await r.waitFor("two receipts", (all) => all.filter((x) => x.json.messageId === messageId).length === 2);
    const deliveries = await waitUntil("both deliveries recorded", async () => {
      const rows = await db("webhook_deliveries")
        .where({ account_id: a.accountId, message_id: messageId })
        .select("id", "status", "handed_to");
      return rows.length === 2 && rows.every((d) => d.status === "succeeded") ? rows : undefined;
    });
    expect(deliveries.map((d) => d.handed_to)).toEqual([null, null]);
    const { rows } = await db.raw("SELECT count(*)::int AS n FROM test_receipt_jobs WHERE delivery_id = ANY(?::uuid[])", [
      deliveries.map((d) => d.id),
    ]);
    expect(rows[0].n).toBe(0);
    await db.raw("DROP TRIGGER test_receipt_job ON jobs");
  });

  it("posts dlr.sent and dlr.delivered with the contract's body, verifiable with both schemes", async () => {
    const a = await server().account();
    const r = await receiver();
    const hook = await webhook(a, r.url);
    const messageId = await sendSoon(a);
    await r.waitFor("two receipts", (all) => all.filter((x) => x.json.messageId === messageId).length === 2);
    const [sent, delivered] = forMessage(r, messageId);
    expect(sent!.json).toEqual({
      event: "dlr.sent",
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      messageId,
      to: "+14155550123",
      status: "sent",
      providerMessageId: expect.stringMatching(/^sim-/),
      reference: null,
      metadata: null,
    });
    expect(Object.keys(sent!.json)).toEqual([
      "event",
      "timestamp",
      "messageId",
      "to",
      "status",
      "providerMessageId",
      "reference",
      "metadata",
    ]);
    expect(delivered!.json).toMatchObject({ event: "dlr.delivered", status: "delivered", providerMessageId: sent!.json.providerMessageId });
    for (const receipt of [sent!, delivered!]) {
      expect(receipt.headers["content-type"]).toBe("application/json");
      // The service document's scheme, recomputed here by hand.
      const hex = createHmac("sha256", Buffer.from(hook.secret, "utf8")).update(receipt.body).digest("hex");
      expect(receipt.headers["x-webhook-signature"]).toBe(hex);
      expect(receipt.headers["x-webhook-id"]).toBe(receipt.headers["webhook-id"]);
      // Standard Webhooks, verified by an implementation nobody here wrote.
      const verified = new Webhook(hook.secret).verify(receipt.body, receipt.headers as Record<string, string>);
      expect(verified).toEqual(receipt.json);
      expect(verifyReceipt(receipt.body, receipt.headers, hook.secret)).toBe(true);
      expect(verifyReceipt(receipt.body, receipt.headers, `whsec_${Buffer.alloc(32).toString("base64")}`)).toBe(false);
      expect(verifyReceipt(`${receipt.body.replace("hello", "HELLO")} `, receipt.headers, hook.secret)).toBe(false);
      // A captured receipt replayed a week later: refused with its timestamped headers, and refused with them
      // stripped (the untimestamped signature alone), unless the caller asks for the legacy scheme.
      const weekLater = { now: new Date(Date.now() + 7 * 86_400_000) };
      expect(verifyReceipt(receipt.body, receipt.headers, hook.secret, weekLater)).toBe(false);
      const stripped = Object.fromEntries(Object.entries(receipt.headers).filter(([name]) => !name.startsWith("webhook-")));
      expect(verifyReceipt(receipt.body, stripped, hook.secret, weekLater)).toBe(false);
      expect(verifyReceipt(receipt.body, stripped, hook.secret)).toBe(false);
      expect(verifyReceipt(receipt.body, stripped, hook.secret, { allowLegacySignature: true })).toBe(true);
    }
  });

  it("posts failed and undelivered receipts with the error", async () => {
    const a = await server().account();
    const r = await receiver();
    await webhook(a, r.url);
    const failed = await sendSoon(a, "+14155550001");
    const undelivered = await sendSoon(a, "+14155550002");
    await r.waitFor(
      "receipts",
      (all) => all.filter((x) => x.json.messageId === undelivered).length === 2 && all.some((x) => x.json.messageId === failed),
    );
    expect(forMessage(r, failed).map((x) => x.json)).toEqual([
      expect.objectContaining({
        event: "dlr.failed",
        status: "failed",
        providerMessageId: null,
        error: expect.objectContaining({ code: "rejected" }),
      }),
    ]);
    expect(forMessage(r, undelivered)[1]!.json).toMatchObject({ event: "dlr.undelivered", error: { code: "number_inactive" } });
  });

  it("sends every receipt to each webhook of the account, each signed with its own secret, and none to another account", async () => {
    const a = await server().account();
    const b = await server().account();
    const [r1, r2, rb] = [await receiver(), await receiver(), await receiver()];
    const [h1, h2] = [await webhook(a, r1.url), await webhook(a, r2.url)];
    await webhook(b, rb.url);
    const messageId = await sendSoon(a);
    await r1.waitFor("r1", (all) => all.filter((x) => x.json.messageId === messageId).length === 2);
    await r2.waitFor("r2", (all) => all.filter((x) => x.json.messageId === messageId).length === 2);
    for (const x of forMessage(r1, messageId)) expect(verifyReceipt(x.body, x.headers, h1.secret)).toBe(true);
    for (const x of forMessage(r2, messageId)) {
      expect(verifyReceipt(x.body, x.headers, h2.secret)).toBe(true);
      expect(verifyReceipt(x.body, x.headers, h1.secret)).toBe(false);
    }
    expect(rb.received).toEqual([]);
  });

  it("retries 500, 500, 200 with the same X-Webhook-Id and growing gaps", async () => {
    const a = await server().account();
    const r = await receiver();
    r.respond = (_req, i) => ({ status: i < 2 ? 500 : 200 });
    const hook = await webhook(a, r.url);
    const messageId = await sendSoon(a, "+14155550003"); // sent, and no further receipt
    await r.waitFor("three attempts", (all) => all.length === 3);
    const ids = new Set(r.received.map((x) => x.headers["x-webhook-id"]));
    expect(ids.size).toBe(1);
    const [t0, t1, t2] = r.received.map((x) => x.at);
    expect(t1! - t0!).toBeGreaterThanOrEqual(180); // 200 ms ± 10 %
    expect(t2! - t1!).toBeGreaterThanOrEqual(900); // 1000 ms ± 10 %
    expect(t2! - t1!).toBeGreaterThan(t1! - t0!);
    const { data } = await a.client.GET("/api/v1/webhooks/{webhookId}/deliveries", {
      params: { path: { webhookId: hook.webhookId }, query: { messageId } },
    });
    await waitUntil("delivery logged as succeeded", async () => {
      const page = await a.client.GET("/api/v1/webhooks/{webhookId}/deliveries", {
        params: { path: { webhookId: hook.webhookId }, query: { messageId } },
      });
      return page.data!.data[0]?.status === "succeeded";
    });
    expect(data!.data).toHaveLength(1);
    const log = (await a.client.GET("/api/v1/webhooks/{webhookId}/deliveries", { params: { path: { webhookId: hook.webhookId } } })).data!
      .data[0]!;
    expect(log).toMatchObject({ deliveryId: [...ids][0], messageId, event: "dlr.sent", status: "succeeded" });
    expect(log.attempts.map((x) => x.responseStatus)).toEqual([500, 500, 200]);
    expect(log.attempts.map((x) => x.error)).toEqual(["receiver answered 500", "receiver answered 500", null]);
  });

  it("gives up after exactly four attempts at an always-503 receiver, and logs the delivery as failed", async () => {
    const a = await server().account();
    const r = await receiver();
    r.respond = () => ({ status: 503 });
    const hook = await webhook(a, r.url);
    await sendSoon(a, "+14155550003");
    const failed = await waitUntil(
      "failed delivery",
      async () => {
        const page = await a.client.GET("/api/v1/webhooks/{webhookId}/deliveries", {
          params: { path: { webhookId: hook.webhookId }, query: { status: "failed" } },
        });
        return page.data!.data[0];
      },
      30_000,
    );
    expect(failed.attempts).toHaveLength(4);
    expect(r.received).toHaveLength(4);
    // Nothing more comes: the delivery's job is finished, not waiting for another attempt.
    await waitUntil("the delivery job finished", async () => {
      const jobs = await server().db("jobs").where({ kind: "deliver_receipt" }).whereRaw("payload->>'deliveryId' = ?", [failed.deliveryId]);
      return jobs.length === 0; // a job that finished is deleted
    });
    expect(r.received).toHaveLength(4);
  });

  it("honours a longer Retry-After on 429", async () => {
    const a = await server().account();
    const r = await receiver();
    r.respond = (_req, i) => (i === 0 ? { status: 429, headers: { "retry-after": "2" } } : { status: 200 });
    await webhook(a, r.url);
    await sendSoon(a, "+14155550003");
    await r.waitFor("second attempt", (all) => all.length === 2);
    expect(r.received[1]!.at - r.received[0]!.at).toBeGreaterThanOrEqual(1950); // not the 200 ms backoff
  });

  it("clamps a Retry-After of 1e308 seconds to one hour", async () => {
    const a = await server().account();
    const r = await receiver();
    r.respond = () => ({ status: 503, headers: { "retry-after": "1e308" } });
    const hook = await webhook(a, r.url);
    await sendSoon(a, "+14155550003"); // later receipts of the message wait behind the first one
    const retry = await waitUntil("the failed attempt recorded, the retry scheduled", async () => {
      const [delivery] = await server().db("webhook_deliveries").where({ webhook_id: hook.webhookId }).select("id", "attempts");
      if (delivery?.attempts.length !== 1) return undefined;
      const job = await server()
        .db("jobs")
        .whereRaw("payload->>'deliveryId' = ?", [delivery.id])
        .whereNot({ state: "running" })
        .first("run_at");
      return job as { run_at: Date } | undefined;
    });
    expect(r.received).toHaveLength(1);
    const inMs = new Date(retry.run_at).getTime() - Date.now();
    expect(inMs).toBeGreaterThan(55 * 60_000);
    expect(inMs).toBeLessThanOrEqual(60 * 60_000);
  });

  it("counts an answer after the timeout as a failed attempt and retries", async () => {
    const a = await server().account();
    const r = await receiver();
    r.respond = (_req, i) => ({ status: 200, delayMs: i === 0 ? 1500 : 0 });
    const hook = await webhook(a, r.url);
    await sendSoon(a, "+14155550003");
    const ok = await waitUntil("succeeded after a timeout", async () => {
      const page = await a.client.GET("/api/v1/webhooks/{webhookId}/deliveries", {
        params: { path: { webhookId: hook.webhookId }, query: { status: "succeeded" } },
      });
      return page.data!.data[0];
    });
    expect(ok.attempts).toHaveLength(2);
    expect(ok.attempts[0]).toMatchObject({ responseStatus: null, error: "no answer within 500 ms" });
    expect(ok.attempts[0]!.durationMs).toBeGreaterThanOrEqual(450);
  });

  it("does not follow a redirect", async () => {
    const a = await server().account();
    const r = await receiver();
    r.respond = (req) => (req.path === "/dlr" ? { status: 302, headers: { location: "/elsewhere" } } : { status: 200 });
    const hook = await webhook(a, r.url);
    await sendSoon(a, "+14155550003");
    await waitUntil("second attempt", async () => r.received.length >= 2);
    expect(r.received.every((x) => x.path === "/dlr")).toBe(true);
    const page = await a.client.GET("/api/v1/webhooks/{webhookId}/deliveries", { params: { path: { webhookId: hook.webhookId } } });
    expect(page.data!.data[0]!.attempts[0]).toMatchObject({ responseStatus: 302, error: "receiver answered 302" });
  });

  it("delivers a message's receipts in status order: dlr.delivered waits while dlr.sent is retried", async () => {
    const a = await server().account();
    const r = await receiver();
    let sentFailures = 0;
    r.respond = (req) => (req.json.event === "dlr.sent" && sentFailures++ < 2 ? { status: 500 } : { status: 200 });
    await webhook(a, r.url);
    const messageId = await sendSoon(a);
    await r.waitFor(
      "delivered receipt",
      (all) => all.some((x) => x.json.messageId === messageId && x.json.event === "dlr.delivered"),
      20_000,
    );
    const events = forMessage(r, messageId).map((x) => x.json.event);
    expect(events).toEqual(["dlr.sent", "dlr.sent", "dlr.sent", "dlr.delivered"]);
  });

  it("redelivers a delivery on request with the same id", async () => {
    const a = await server().account();
    const r = await receiver();
    const hook = await webhook(a, r.url);
    const messageId = await sendSoon(a, "+14155550003");
    await r.waitFor("first", (all) => all.length === 1);
    const delivery = await waitUntil("logged", async () => {
      const page = await a.client.GET("/api/v1/webhooks/{webhookId}/deliveries", {
        params: { path: { webhookId: hook.webhookId }, query: { messageId } },
      });
      return page.data!.data[0]?.status === "succeeded" && page.data!.data[0];
    });
    const res = await a.client.POST("/api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver", {
      params: { path: { webhookId: hook.webhookId, deliveryId: delivery.deliveryId } },
    });
    expect(res.response.status).toBe(202);
    expect(res.data!.status).toBe("pending");
    await r.waitFor("second", (all) => all.length === 2);
    expect(r.received[1]!.headers["x-webhook-id"]).toBe(delivery.deliveryId);
    expect(r.received[1]!.body).toBe(r.received[0]!.body);
    const unknown = await a.request("POST", `/api/v1/webhooks/${hook.webhookId}/deliveries/00000000-0000-4000-8000-000000000000/redeliver`);
    expect(unknown.status).toBe(404);
  });

  it("sends a signed dlr.test receipt on request and reports the outcome", async () => {
    const a = await server().account();
    const r = await receiver();
    const hook = await webhook(a, r.url);
    const { data } = await a.client.POST("/api/v1/webhooks/{webhookId}/test", { params: { path: { webhookId: hook.webhookId } } });
    expect(data).toMatchObject({ succeeded: true, attempt: { responseStatus: 200, error: null } });
    expect(r.received[0]!.json.event).toBe("dlr.test");
    expect(verifyReceipt(r.received[0]!.body, r.received[0]!.headers, hook.secret)).toBe(true);
    r.respond = () => ({ status: 500 });
    const failed = await a.client.POST("/api/v1/webhooks/{webhookId}/test", { params: { path: { webhookId: hook.webhookId } } });
    expect(failed.data).toMatchObject({ succeeded: false, attempt: { responseStatus: 500 } });
  });

  it("signs with the old and the new secret for 24 hours after a rotation, then with the new one only", async () => {
    const a = await server().account();
    const r = await receiver();
    const hook = await webhook(a, r.url);
    const path = { params: { path: { webhookId: hook.webhookId } } };
    const rotated = (await a.client.POST("/api/v1/webhooks/{webhookId}/secret/rotate", path)).data!.secret;
    const m1 = await sendSoon(a, "+14155550003");
    await r.waitFor("receipt in the window", (all) => all.some((x) => x.json.messageId === m1));
    const during = forMessage(r, m1)[0]!;
    expect(during.headers["webhook-signature"]!.toString().split(" ")).toHaveLength(2);
    expect(verifyReceipt(during.body, during.headers, hook.secret)).toBe(true);
    expect(verifyReceipt(during.body, during.headers, rotated)).toBe(true);
    expect(new Webhook(hook.secret).verify(during.body, during.headers as Record<string, string>)).toBeTruthy();
    expect(new Webhook(rotated).verify(during.body, during.headers as Record<string, string>)).toBeTruthy();
    expect(during.headers["x-webhook-signature"]).toBe(createHmac("sha256", rotated).update(during.body).digest("hex"));

    await server()
      .db("webhooks")
      .where({ id: hook.webhookId })
      .update({ previous_secret_expires_at: new Date(Date.now() - 1000) });
    const m2 = await sendSoon(a, "+14155550003");
    await r.waitFor("receipt after the window", (all) => all.some((x) => x.json.messageId === m2));
    const after = forMessage(r, m2)[0]!;
    expect(after.headers["webhook-signature"]!.toString().split(" ")).toHaveLength(1);
    expect(verifyReceipt(after.body, after.headers, rotated)).toBe(true);
    expect(verifyReceipt(after.body, after.headers, hook.secret)).toBe(false);
  });
});
