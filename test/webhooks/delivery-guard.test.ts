import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../../server/logger.js";
import { startWorker } from "../../server/worker.js";
import { startReceiver, type Receiver } from "../helpers/receiver.js";
import { useTestServer } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

// DNS that a test can change between registration and delivery, as a rebinding attacker would.
let answer = "93.184.215.14";
const resolver = async () => [answer];

const strict = useTestServer({ ...fastWorkerConfig, webhookAllowPrivate: false, webhookRetryBaseMs: 100 }, { resolver });
const open = useTestServer({ ...fastWorkerConfig, webhookRetryBaseMs: 1500 });
const receivers: Receiver[] = [];
afterAll(() => Promise.all(receivers.map((r) => r.close())));

describe("SSRF guard at delivery time", () => {
  it("blocks a host name that resolved to a public address at registration and to 127.0.0.1 at delivery", async () => {
    const worker = await startWorker({
      db: strict().db,
      databaseUrl: strict().url,
      log: createLogger("silent"),
      config: strict().config,
      resolver,
    });
    try {
      const a = await strict().account();
      answer = "93.184.215.14";
      const { data: hook, response } = await a.client.POST("/api/v1/webhooks", {
        body: { name: "rebind", url: "https://hooks.rebind.test/dlr" },
      });
      expect(response.status).toBe(201);
      answer = "127.0.0.1";
      await a.client.POST("/api/v1/scheduler/schedule", {
        body: { to: "+14155550003", body: "x", from: "ACME", scheduledAt: new Date(Date.now() + 1000).toISOString() },
      });
      const attempt = await waitUntil("a blocked attempt", async () => {
        const page = await a.client.GET("/api/v1/webhooks/{webhookId}/deliveries", { params: { path: { webhookId: hook!.webhookId } } });
        return page.data!.data[0]?.attempts[0];
      });
      expect(attempt).toMatchObject({ responseStatus: null, error: "EADDRNOTPUBLIC" });
      // A literal private address stored before the rules tightened is refused too, without a connection.
      const r = await startReceiver();
      receivers.push(r);
      await strict()
        .db("webhooks")
        .where({ id: hook!.webhookId })
        .update({ url: r.url.replace("http:", "https:") });
      const test = await a.client.POST("/api/v1/webhooks/{webhookId}/test", { params: { path: { webhookId: hook!.webhookId } } });
      expect(test.data).toMatchObject({ succeeded: false, attempt: { error: "address 127.0.0.1 is not public" } });
      expect(r.received).toEqual([]);
    } finally {
      await worker.stop(1000);
    }
  });
});

describe("retries survive a restart", () => {
  it("a new worker makes the remaining attempts of a delivery whose worker stopped between two", async () => {
    const a = await open().account();
    const r = await startReceiver();
    receivers.push(r);
    r.respond = (_req, i) => ({ status: i === 0 ? 500 : 200 });
    const { data: hook } = await a.client.POST("/api/v1/webhooks", { body: { name: "w", url: r.url } });
    const log = createLogger("silent");
    const first = await startWorker({ db: open().db, databaseUrl: open().url, log, config: open().config });
    await a.client.POST("/api/v1/scheduler/schedule", {
      body: { to: "+14155550003", body: "x", from: "ACME", scheduledAt: new Date(Date.now() + 1000).toISOString() },
    });
    await r.waitFor("first attempt", (all) => all.length === 1);
    await first.stop(1000); // the retry is 1.5 s away: nothing of it lives in this process
    const second = await startWorker({ db: open().db, databaseUrl: open().url, log, config: open().config });
    try {
      await r.waitFor("second attempt", (all) => all.length === 2, 10_000);
      expect(r.received[1]!.headers["x-webhook-id"]).toBe(r.received[0]!.headers["x-webhook-id"]);
      const done = await waitUntil("succeeded", async () => {
        const page = await a.client.GET("/api/v1/webhooks/{webhookId}/deliveries", { params: { path: { webhookId: hook!.webhookId } } });
        return page.data!.data[0]?.status === "succeeded" && page.data!.data[0];
      });
      expect(done.attempts.map((x) => x.responseStatus)).toEqual([500, 200]);
    } finally {
      await second.stop(1000);
    }
  });
});
