// The programs of client/examples (shown in client/README.md, docs/WEBHOOKS.md and /docs): npm run typecheck
// checks them against the client, and here they run against a real server with a worker: a schedule and cancel, a
// group campaign to completion, a CSV import, and the Express receiver verifying real, signed receipts.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it, vi } from "vitest";
import { CAMPAIGN_CONTACTS, groupCampaign } from "../../client/examples/campaign.js";
import { importContacts } from "../../client/examples/import.js";
import { receiptReceiver, type DeliveryReceipt } from "../../client/examples/receiver.js";
import { replyingReceiver, type MessageReceived } from "../../client/examples/replies.js";
import { scheduleAndCancel } from "../../client/examples/schedule-and-cancel.js";
import { sendNowAndBatch } from "../../client/examples/send-now.js";
import { loadDocument } from "../../server/http/document.js";
import { useTestServer } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer(fastWorkerConfig);
useTestWorker(server);
const root = resolve(import.meta.dirname, "../..");
const examplesDir = resolve(root, "client/examples");
const readme = readFileSync(resolve(root, "client/README.md"), "utf8");
// The examples log what they do; keep the test output quiet.
const quiet = vi.spyOn(console, "log").mockImplementation(() => {});
// The suite's files share a process (vitest.config.ts, isolate: false): the next file logs again.
afterAll(() => quiet.mockRestore());

describe("client examples", () => {
  it("are type-checked by npm run typecheck (tsconfig.json includes them)", () => {
    // Compiling them here too would cost several CPU seconds per run; CI runs the type check before the tests.
    const { config } = ts.readConfigFile(resolve(root, "tsconfig.json"), ts.sys.readFile);
    const { fileNames } = ts.parseJsonConfigFileContent(config, ts.sys, root);
    const examples = readdirSync(examplesDir)
      .filter((f) => f.endsWith(".ts"))
      .map((f) => resolve(examplesDir, f));
    expect(examples.length).toBeGreaterThanOrEqual(6);
    for (const file of examples) expect(fileNames.map((f) => resolve(f))).toContain(file);
  });

  it("every example block of the READMEs and of /docs is a run of lines of the example file it names", () => {
    const blocksOf = (text: string) =>
      [...text.matchAll(/```ts\n\/\/ client\/examples\/(\S+\.ts)\n([\s\S]*?)```/g)].map((m) => ({ file: m[1]!, code: m[2]! }));
    const receipts = (loadDocument() as unknown as { tags: { name: string; description?: string }[] }).tags.find(
      (t) => t.name === "Delivery receipts",
    )!;
    const sources = {
      "client/README.md": blocksOf(readme),
      "docs/WEBHOOKS.md": blocksOf(readFileSync(resolve(root, "docs/WEBHOOKS.md"), "utf8")),
      "/docs": blocksOf(receipts.description!),
    };
    expect(sources["client/README.md"].map((b) => b.file)).toEqual([
      "common.ts",
      "schedule-and-cancel.ts",
      "send-now.ts",
      "campaign.ts",
      "import.ts",
      "receiver.ts",
      "replies.ts",
    ]);
    expect(sources["docs/WEBHOOKS.md"].map((b) => b.file)).toEqual(["receiver.ts"]);
    expect(sources["/docs"].map((b) => b.file)).toEqual(["receiver.ts"]);
    for (const [where, blocks] of Object.entries(sources)) {
      for (const { file, code } of blocks) {
        expect(readFileSync(resolve(examplesDir, file), "utf8"), `the ${file} block of ${where} differs from the file`).toContain(
          code.trimEnd(),
        );
      }
    }
  });

  it("schedule → cancel", async () => {
    const a = await server().account();
    const { scheduled, cancelled } = await scheduleAndCancel(a.client);
    expect(scheduled.status).toBe("scheduled");
    expect(cancelled).toMatchObject({ messageId: scheduled.messageId, status: "cancelled" });
  });

  it("a one-time code sent now, and a batch with one refused item", async () => {
    const a = await server().account();
    const { code, batch } = await sendNowAndBatch(a.client);
    expect(code.status).toBe("scheduled");
    expect(batch).toMatchObject({ accepted: 1, rejected: 1 });
    const sent = await waitUntil("the code sent", async () => {
      const m = (await a.client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId: code.messageId } } })).data!;
      return m.status !== "scheduled" && m;
    });
    expect(sent).toMatchObject({ reference: "login-7731" });
  });

  it("group, contacts, campaign, and stats polled until completed", async () => {
    const a = await server().account();
    const campaign = await groupCampaign(a.client, { pollMs: 50 });
    expect(campaign.status).toBe("completed");
    expect(campaign.stats).toMatchObject({ total: 2, delivered: 2 });
  });

  it("run any number of times, in any order, after the walk-through (docs/WALKTHROUGH.md)", async () => {
    const a = await server().account();
    // What the walk-through leaves: +14155550123 opted out by its STOP, a group named VIP.
    expect((await a.request("PUT", `/api/v1/opt-outs/${encodeURIComponent("+14155550123")}`, {})).status).toBeLessThan(300);
    expect((await a.request("POST", "/api/v1/contacts/groups", { name: "VIP" })).status).toBe(201);
    const runs = {
      schedule: () => scheduleAndCancel(a.client),
      send: () => sendNowAndBatch(a.client),
      campaign: () => groupCampaign(a.client, { pollMs: 50 }),
      import: () => importContacts(a.client, "phone,firstName,group\n+1 415 555 0160,Ada,\n"),
    };
    for (const order of [Object.keys(runs), Object.keys(runs).reverse()])
      for (const name of order) await expect(runs[name as keyof typeof runs](), `${name} in ${order.join(", ")}`).resolves.toBeTruthy();
    const campaigns = (await (await a.request("GET", "/api/v1/campaigns")).json()) as {
      data: { status: string; stats: { total: number } }[];
    };
    expect(campaigns.data.map((c) => [c.status, c.stats.total])).toEqual([
      ["completed", 2],
      ["completed", 2],
    ]);
  });

  it("end with labelled counts on an account in the walk-through's state, a message held by quiet hours reported, not waited for", async () => {
    const a = await server().account();
    // What docs/WALKTHROUGH.md leaves (test/newcomer/walkthrough.test.ts runs the page itself, then these
    // examples, at whatever time of day): its numbers opted out, its contact in Europe/London, and its sending
    // policy: marketing held 21:00-08:00 in the recipient's zone, America/New_York by default.
    for (const phone of ["+14155550123", "+14155550124"])
      expect((await a.request("PUT", `/api/v1/opt-outs/${encodeURIComponent(phone)}`, {})).status).toBeLessThan(300);
    expect(
      (await a.request("POST", "/api/v1/contacts", { phone: "+447911123456", firstName: "Ada", timeZone: "Europe/London" })).status,
    ).toBe(201);
    const policy = { quietHours: { start: "21:00", end: "08:00" }, defaultTimeZone: "America/New_York", maxSegmentsPerSecond: 10 };
    expect((await a.request("PATCH", "/api/v1/account/settings", policy)).status).toBe(200);
    // So that those quiet hours hold the campaign whatever the time here: its contacts, made beforehand, live in
    // the zone where it is now between midnight and 01:00 (seven hours inside the window either way).
    const east = (24 - new Date().getUTCHours()) % 24;
    const offset = east > 14 ? east - 24 : east; // Etc/GMT-N is N hours east of UTC
    const night = offset === 0 ? "Etc/GMT" : offset > 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`;
    for (const contact of CAMPAIGN_CONTACTS)
      expect((await a.request("POST", "/api/v1/contacts", { ...contact, timeZone: night })).status).toBe(201);

    quiet.mockClear();
    const said = () => quiet.mock.calls.map((args) => args.map(String).join(" "));
    const t0 = Date.now();
    const campaign = await groupCampaign(a.client, { pollMs: 50, timeoutMs: 60_000 });
    expect(Date.now() - t0, "returned once both were deferred, not at its time limit").toBeLessThan(60_000);
    expect(campaign.stats).toMatchObject({ total: 2, scheduled: 2, deferred: 2, sent: 0 });
    expect(campaign.deferredUntil).not.toBeNull();
    expect(said()).toContain(`2 deferred until ${campaign.deferredUntil} (the account's quiet hours)`);
    expect(said().join("\n")).not.toContain("still in flight");

    const { batch } = await sendNowAndBatch(a.client);
    expect(batch).toMatchObject({ accepted: 1, rejected: 1 }); // its numbers are its own: none opted out
    await scheduleAndCancel(a.client);
    await importContacts(a.client, "phone,firstName,group\n+1 415 555 0146,Ada,\n");
    const lines = said();
    expect(lines).toEqual(
      expect.arrayContaining([
        "batch: 1 accepted, 1 refused",
        "A-1043 refused: destination_not_allowed",
        "import: 1 imported, 0 rows failed",
      ]),
    );
    // Every number said with what it counts: no line of bare numbers ("0 2" once).
    for (const line of lines) expect(line).not.toMatch(/^[\d\s]+$/);
  });

  it("CSV import", async () => {
    const a = await server().account();
    const result = await importContacts(a.client, "phone,firstName,group\n+1 415 555 0160,Ada,\nnope,Bob,\n+14155550160,Ada again,\n");
    expect(result).toMatchObject({ imported: 1, failed: 2 });
    expect(result.errors.map((e) => [e.row, e.code])).toEqual([
      [2, "invalid_phone"],
      [3, "duplicate_in_import"],
    ]);
  });

  it("the Express receiver accepts signed receipts once each and refuses a forged one", async () => {
    const a = await server().account();
    const received: DeliveryReceipt[] = [];
    // The server listens first, so the webhook can be registered with its URL and the app given its secret.
    const receiver = createServer();
    await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/sms/dlr`;
      const { data: webhook } = await a.client.POST("/api/v1/webhooks", { body: { name: "example", url } });
      receiver.on(
        "request",
        receiptReceiver(webhook!.secret, (r) => received.push(r)),
      );

      const { data: test } = await a.client.POST("/api/v1/webhooks/{webhookId}/test", {
        params: { path: { webhookId: webhook!.webhookId } },
      });
      expect(test).toMatchObject({ succeeded: true, attempt: { responseStatus: 204 } });

      const { data: message } = await a.client.POST("/api/v1/scheduler/schedule", {
        body: { to: "+14155550170", body: "hi", from: "ACME", scheduledAt: new Date(Date.now() + 1500).toISOString() },
      });
      await waitUntil("sent and delivered receipts", async () => received.filter((r) => r.messageId === message!.messageId).length === 2);
      const ofMessage = received.filter((r) => r.messageId === message!.messageId);
      expect(ofMessage.map((r) => r.event)).toEqual(["dlr.sent", "dlr.delivered"]);

      // A redelivery carries the same X-Webhook-Id: answered 2xx, not handled twice.
      const { data: deliveries } = await a.client.GET("/api/v1/webhooks/{webhookId}/deliveries", {
        params: { path: { webhookId: webhook!.webhookId }, query: { messageId: message!.messageId } },
      });
      const delivered = deliveries!.data.find((d) => d.event === "dlr.delivered")!;
      const count = received.length;
      await a.client.POST("/api/v1/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver", {
        params: { path: { webhookId: webhook!.webhookId, deliveryId: delivered.deliveryId } },
      });
      await waitUntil("the redelivery answered", async () => {
        const { data } = await a.client.GET("/api/v1/webhooks/{webhookId}/deliveries", {
          params: { path: { webhookId: webhook!.webhookId }, query: { messageId: message!.messageId } },
        });
        return data!.data.find((d) => d.deliveryId === delivered.deliveryId)!.attempts.length === 2;
      });
      expect(received.length).toBe(count);

      const body = JSON.stringify(ofMessage[1]);
      const forged = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-webhook-signature": "0".repeat(64) },
        body,
      });
      expect(forged.status).toBe(401);
      const noBody = await fetch(url, { method: "POST", headers: { "content-type": "text/plain" }, body: "x" });
      expect(noBody.status).toBe(401);
    } finally {
      await new Promise((done) => receiver.close(done));
    }
  });

  it("the replying receiver gets message.received, verified, and answers from the number written to", async () => {
    const a = await server().account();
    const got: MessageReceived[] = [];
    const receiver = createServer();
    await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/sms/inbound`;
      const { data: webhook } = await a.client.POST("/api/v1/webhooks", { body: { name: "inbox", url, events: ["message.received"] } });
      receiver.on(
        "request",
        replyingReceiver(a.client, webhook!.secret, (m) => {
          got.push(m);
          return `Thanks, we got "${m.body}".`;
        }),
      );
      const { data: number } = await a.client.POST("/api/v1/numbers", { body: { phoneNumber: "+14155550171" } });
      const { data: inbound } = await a.client.POST("/api/v1/simulator/inbound", {
        body: { from: "+14155550172", to: number!.phoneNumber, body: "Is my order shipped?" },
      });
      const reply = await waitUntil("the reply scheduled", async () => {
        const { data } = await a.client.GET("/api/v1/messages", { params: { query: { phone: "+14155550172", direction: "outbound" } } });
        return data!.data[0];
      });
      expect(got.map((m) => [m.messageId, m.from, m.body])).toEqual([[inbound!.messageId, "+14155550172", "Is my order shipped?"]]);
      expect(reply).toMatchObject({
        direction: "outbound",
        to: "+14155550172",
        from: "+14155550171",
        body: 'Thanks, we got "Is my order shipped?".',
      });
    } finally {
      await new Promise((done) => receiver.close(done));
    }
  });
});
