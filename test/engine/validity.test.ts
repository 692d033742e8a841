// Validity: validityPeriod on schedule and campaigns, validUntil on messages, and a message past its validity
// never handed to the provider (a real worker, the simulator's submission record, a real webhook receiver).
import { afterAll, describe, expect, it } from "vitest";
import type { components } from "../../generated/api.js";
import { countSubmissionsByMessage } from "../../server/db/simulatorSubmissions.js";
import { createLogger } from "../../server/logger.js";
import { startWorker, type Worker } from "../../server/worker.js";
import { startReceiver } from "../helpers/receiver.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

type Outbound = components["schemas"]["OutboundMessage"];
const server = useTestServer(fastWorkerConfig);
// Started by the first test that needs one, after the messages it must find waiting.
let worker: Worker | undefined;
const ensureWorker = async () => {
  const s = server();
  worker ??= await startWorker({
    db: s.db,
    databaseUrl: s.url,
    log: createLogger(process.env.TEST_LOG_LEVEL ?? "silent"),
    config: s.config,
  });
};
afterAll(async () => {
  await worker?.stop(2_000);
});

const getMessage = async (a: TestAccount, messageId: string) =>
  (await a.client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId } } })).data! as Outbound;
const inFuture = (ms: number) => new Date(Date.now() + ms).toISOString();
/** A whole minute `days` ahead of the test's own clock (no fixed date: a scheduledAt must be later than now). */
const daysAhead = (days: number) => new Date(Math.ceil((Date.now() + days * 86_400_000) / 60_000) * 60_000);
const plus = (at: Date, ms: number) => new Date(at.getTime() + ms).toISOString();

describe("validity", () => {
  it("schedule with validityPeriod returns validUntil = scheduledAt + period; without it, null", async () => {
    const a = await server().account();
    const at = daysAhead(30);
    const scheduledAt = at.toISOString();
    const { data: limited } = await a.client.POST("/api/v1/scheduler/schedule", {
      body: { to: "+14155550140", body: "code 1234", from: "ACME", scheduledAt, validityPeriod: 600 },
    });
    const { data: open } = await a.client.POST("/api/v1/scheduler/schedule", {
      body: { to: "+14155550140", body: "hello", from: "ACME", scheduledAt },
    });
    expect((await getMessage(a, limited!.messageId)).validUntil).toBe(plus(at, 600_000));
    expect((await getMessage(a, open!.messageId)).validUntil).toBeNull();
    const { data: list } = await a.client.GET("/api/v1/messages", { params: { query: { status: "scheduled" } } });
    expect(list!.data.find((m) => m.messageId === limited!.messageId)).toMatchObject({ validUntil: plus(at, 600_000) });
  });

  it("rejects a validityPeriod out of 1..604800 or not an integer with 400, storing nothing", async () => {
    const a = await server().account();
    for (const validityPeriod of [0, 604801, 1.5, "60"]) {
      const schedule = await a.request("POST", "/api/v1/scheduler/schedule", {
        to: "+14155550141",
        body: "x",
        from: "ACME",
        scheduledAt: inFuture(60_000),
        validityPeriod,
      });
      expect(schedule.status).toBe(400);
      expect(await schedule.json()).toMatchObject({
        code: "validation_failed",
        errors: [expect.objectContaining({ path: "/body/validityPeriod" })],
      });
      const campaign = await a.request("POST", "/api/v1/campaigns", {
        name: "c",
        message: "x",
        type: "instant",
        recipients: ["+14155550141"],
        validityPeriod,
      });
      expect(campaign.status).toBe(400);
    }
    const { data } = await a.client.GET("/api/v1/messages", {});
    expect(data!.data).toHaveLength(0);
    const { data: campaigns } = await a.client.GET("/api/v1/campaigns", {});
    expect(campaigns!.data).toHaveLength(0);
    // The bounds themselves are accepted.
    for (const validityPeriod of [1, 604800]) {
      const ok = await a.request("POST", "/api/v1/scheduler/schedule", {
        to: "+14155550141",
        body: "x",
        from: "ACME",
        scheduledAt: inFuture(60_000),
        validityPeriod,
      });
      expect(ok.status).toBe(201);
    }
  });

  it("a message whose validity ends before a worker picks it up fails validity_expired, is never submitted, and posts dlr.failed", async () => {
    const a = await server().account();
    const receiver = await startReceiver();
    await a.client.POST("/api/v1/webhooks", { body: { name: "r", url: receiver.url } });
    const scheduledAt = inFuture(1000);
    const { data: late } = await a.client.POST("/api/v1/scheduler/schedule", {
      body: { to: "+14155550142", body: "code 1234", from: "ACME", scheduledAt, validityPeriod: 1 },
    });
    const { data: timely } = await a.client.POST("/api/v1/scheduler/schedule", {
      body: { to: "+14155550143", body: "no limit", from: "ACME", scheduledAt },
    });
    const validUntil = new Date((await getMessage(a, late!.messageId)).validUntil!).getTime();
    // No worker runs until the validity has passed (the database shares this machine's clock).
    await waitUntil("the validity passed", async () => Date.now() > validUntil + 20);
    await ensureWorker();

    const failed = await waitUntil("the expired message failed", async () => {
      const m = await getMessage(a, late!.messageId);
      return m.status === "failed" && m;
    });
    expect(failed.error).toEqual({ code: "validity_expired", message: expect.any(String) });
    expect(failed.history.map((h) => h.status)).toEqual(["scheduled", "failed"]);
    expect(failed.sentAt).toBeNull();
    await waitUntil("the other message delivered", async () => (await getMessage(a, timely!.messageId)).status === "delivered");
    const submissions = await countSubmissionsByMessage(server().db);
    expect(submissions.get(late!.messageId)).toBeUndefined();
    expect(submissions.get(timely!.messageId)).toBe(1);
    await receiver.waitFor("the dlr.failed receipt", (all) => all.some((r) => r.json.messageId === late!.messageId));
    const dlr = receiver.received.filter((r) => r.json.messageId === late!.messageId);
    expect(dlr.map((r) => r.json)).toEqual([
      expect.objectContaining({ event: "dlr.failed", status: "failed", error: { code: "validity_expired", message: expect.any(String) } }),
    ]);
    await receiver.close();
  });

  it("a campaign's validityPeriod counts from its scheduledAt, an instant one's from its creation", async () => {
    await ensureWorker();
    const a = await server().account();
    const at = daysAhead(31);
    const scheduledAt = at.toISOString();
    const { data: later } = await a.client.POST("/api/v1/campaigns", {
      body: {
        name: "later",
        message: "hi",
        type: "scheduled",
        scheduledAt,
        recipients: ["+14155550144", "+14155550145"],
        validityPeriod: 3600,
      },
    });
    expect(later).toMatchObject({ validityPeriod: 3600 });
    const messagesOf = async (campaignId: string, n: number) =>
      waitUntil(`${n} messages of the campaign`, async () => {
        const { data } = await a.client.GET("/api/v1/messages", { params: { query: { campaignId } } });
        return data!.data.length === n && (data!.data as Outbound[]);
      });
    for (const m of await messagesOf(later!.campaignId, 2)) expect(m.validUntil).toBe(plus(at, 3_600_000));

    const { data: now } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "now", message: "hi", type: "instant", recipients: ["+14155550146"], validityPeriod: 604800 },
    });
    const [m] = await messagesOf(now!.campaignId, 1);
    expect(new Date(m!.validUntil!).getTime()).toBe(new Date(now!.createdAt).getTime() + 604800 * 1000);
    await waitUntil("the instant campaign's message delivered", async () => (await getMessage(a, m!.messageId)).status === "delivered");

    const { data: open } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "open", message: "hi", type: "instant", recipients: ["+14155550147"] },
    });
    const [o] = await messagesOf(open!.campaignId, 1);
    expect(o!.validUntil).toBeNull();
  });
});
