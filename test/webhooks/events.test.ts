// Webhook event types: subscriptions, PATCH, and message.received / contact.opted_out / contact.opted_in bodies,
// signed and logged like receipts, to real receivers through a real worker.
import { createHmac } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { startReceiver, type Receiver } from "../helpers/receiver.js";
import { problemOf, useTestServer, type TestAccount } from "../helpers/server.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer(fastWorkerConfig);
useTestWorker(server);
const receivers: Receiver[] = [];
afterAll(async () => {
  for (const r of receivers) await r.close();
});

const DLR = ["dlr.sent", "dlr.delivered", "dlr.failed", "dlr.undelivered"];

async function webhook(a: TestAccount, events?: string[]) {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const res = await a.request("POST", "/api/v1/webhooks", { name: "w", url: receiver.url, ...(events ? { events } : {}) });
  expect(res.status).toBe(201);
  const created = (await res.json()) as { webhookId: string; secret: string; events: string[] };
  return { receiver, ...created };
}

const signedBy = (secret: string, body: string) => createHmac("sha256", Buffer.from(secret, "utf8")).update(body).digest("hex");

describe("webhook event types", () => {
  it("default to the four dlr.* events; create with events; PATCH name, url and events", async () => {
    const a = await server().account();
    const plain = await webhook(a);
    expect(plain.events).toEqual(DLR);
    const inbound = await webhook(a, ["message.received", "contact.opted_out", "message.received"]);
    expect(inbound.events).toEqual(["message.received", "contact.opted_out"]);
    const patched = await a.request("PATCH", `/api/v1/webhooks/${plain.webhookId}`, { name: "renamed", events: ["contact.opted_in"] });
    expect(patched.status).toBe(200);
    expect(await patched.json()).toMatchObject({
      webhookId: plain.webhookId,
      name: "renamed",
      url: plain.receiver.url,
      events: ["contact.opted_in"],
    });
    const { data: got } = await a.client.GET("/api/v1/webhooks/{webhookId}", { params: { path: { webhookId: plain.webhookId } } });
    expect(got).toMatchObject({ name: "renamed", events: ["contact.opted_in"] });
    const moved = await a.request("PATCH", `/api/v1/webhooks/${plain.webhookId}`, { url: "http://127.0.0.1:9/moved" });
    expect(((await moved.json()) as { url: string }).url).toBe("http://127.0.0.1:9/moved");
  });

  it("rejects unknown or no event types, unknown fields and bad URLs; 404 for another account's webhook", async () => {
    const a = await server().account();
    const b = await server().account();
    const w = await webhook(a);
    for (const body of [{ events: ["dlr.test"] }, { events: [] }, { colour: "red" }, { url: "ftp://example.com" }, { name: "" }]) {
      const res = await a.request("PATCH", `/api/v1/webhooks/${w.webhookId}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await a.request("POST", "/api/v1/webhooks", { name: "x", url: "http://127.0.0.1:9/", events: ["sms.sent"] })).status).toBe(400);
    const other = await b.request("PATCH", `/api/v1/webhooks/${w.webhookId}`, { name: "mine" });
    expect((await problemOf(other)).code).toBe("not_found");
  });

  it("posts message.received and contact.opted_out / opted_in with the contract's bodies, signed, only to subscribers", async () => {
    const a = await server().account();
    await a.request("POST", "/api/v1/numbers", { phoneNumber: "+14155550400" });
    const receipts = await webhook(a);
    const everything = await webhook(a, ["message.received", "contact.opted_out", "contact.opted_in", "dlr.delivered"]);

    const hello = await a.request("POST", "/api/v1/simulator/inbound", { from: "+14155550401", to: "+14155550400", body: "Hello there" });
    const helloId = ((await hello.json()) as { messageId: string }).messageId;
    const stop = await a.request("POST", "/api/v1/simulator/inbound", { from: "+14155550401", to: "+14155550400", body: "Stop" });
    const stopId = ((await stop.json()) as { messageId: string }).messageId;
    expect((await a.request("PUT", "/api/v1/opt-outs/14155550402")).status).toBe(201);
    expect((await a.request("DELETE", "/api/v1/opt-outs/14155550402")).status).toBe(204);

    const all = await everything.receiver.waitFor("five events and the confirmation's receipt", (r) => r.length >= 6);
    const byEvent = (event: string) => all.filter((r) => r.json.event === event).map((r) => r.json);
    const received = byEvent("message.received");
    expect(received.find((e) => e.messageId === helloId)).toEqual({
      event: "message.received",
      timestamp: expect.any(String),
      messageId: helloId,
      from: "+14155550401",
      to: "+14155550400",
      body: "Hello there",
      segments: 1,
      encoding: "GSM-7",
      receivedAt: expect.any(String),
      incomplete: false,
    });
    expect(received.map((e) => e.messageId).sort()).toEqual([helloId, stopId].sort());
    // Events of different messages travel independently: compared in phone order.
    expect(byEvent("contact.opted_out").sort((x, y) => String(x.phone).localeCompare(String(y.phone)))).toEqual([
      {
        event: "contact.opted_out",
        timestamp: expect.any(String),
        phone: "+14155550401",
        source: "keyword",
        keyword: "STOP",
        messageId: stopId,
      },
      { event: "contact.opted_out", timestamp: expect.any(String), phone: "+14155550402", source: "api", keyword: null, messageId: null },
    ]);
    expect(byEvent("contact.opted_in")).toEqual([
      { event: "contact.opted_in", timestamp: expect.any(String), phone: "+14155550402", source: "api", keyword: null, messageId: null },
    ]);
    // The STOP's message.received arrives before the opt-out it caused (same message, ordered like receipts).
    const stopEvents = all.filter((r) => r.json.messageId === stopId).map((r) => r.json.event);
    expect(stopEvents).toEqual(["message.received", "contact.opted_out"]);
    expect(byEvent("dlr.delivered")).toHaveLength(1); // the confirmation; dlr.sent is not subscribed
    expect(byEvent("dlr.sent")).toEqual([]);
    for (const r of all) {
      expect(r.headers["x-webhook-signature"]).toBe(signedBy(everything.secret, r.body));
      expect(r.headers["webhook-id"]).toBe(r.headers["x-webhook-id"]);
    }

    // The receipts-only webhook got the confirmation's receipts and nothing else; its log says so too.
    await receipts.receiver.waitFor("the confirmation's dlr.delivered", (r) => r.some((x) => x.json.event === "dlr.delivered"));
    const { data: log } = await a.client.GET("/api/v1/webhooks/{webhookId}/deliveries", {
      params: { path: { webhookId: receipts.webhookId } },
    });
    expect(new Set(log!.data.map((d) => d.event))).toEqual(new Set(["dlr.sent", "dlr.delivered"]));
    const { data: log2 } = await a.client.GET("/api/v1/webhooks/{webhookId}/deliveries", {
      params: { path: { webhookId: everything.webhookId } },
    });
    expect(log2!.data.filter((d) => d.event.startsWith("contact.") && d.messageId === null)).toHaveLength(2);
    expect(log2!.data.every((d) => d.status === "succeeded")).toBe(true);
  });
});
