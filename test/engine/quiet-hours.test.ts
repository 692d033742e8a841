// Quiet hours through the real send path: the API, a real worker over the simulator, GET of the message and
// the campaign. The worker's policy clock is pinned to a wall-clock situation (21:30 in Los Angeles) with the
// `clock` option of startWorker; jobs run on real time, so a hold's end is converted back to it. Each test
// has its own account; recipients are fixed numbers the simulator delivers.
import { describe, expect, it } from "vitest";
import type { components } from "../../generated/api.js";
import { notifyWorkers } from "../../server/db/jobs/index.js";
import { countSubmissionsByMessage } from "../../server/db/simulatorSubmissions.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

type Outbound = components["schemas"]["OutboundMessage"];
// International networks allowed: an Inmarsat number below is one that no time zone map names.
const server = useTestServer({ ...fastWorkerConfig, allowInternationalNetworks: true });

// The policy clock: real time shifted to the instant a test pins.
let clockOffsetMs = 0;
const pinClock = (iso: string) => {
  clockOffsetMs = Date.parse(iso) - Date.now();
};
useTestWorker(server, { clock: () => new Date(Date.now() + clockOffsetMs) });

const NIGHT = { start: "21:00", end: "08:00" };
const soon = () => new Date(Date.now() + 300).toISOString();

const getMessage = async (a: TestAccount, messageId: string) =>
  (await a.client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId } } })).data! as Outbound;
const getCampaign = async (a: TestAccount, campaignId: string) =>
  (await a.client.GET("/api/v1/campaigns/{campaignId}", { params: { path: { campaignId } } })).data!;
const withQuietHours = async (a: TestAccount, settings: Record<string, unknown> = {}) => {
  const res = await a.request("PATCH", "/api/v1/account/settings", { quietHours: NIGHT, ...settings });
  expect(res.status).toBe(200);
};
const schedule = async (a: TestAccount, body: { to: string; category?: "marketing" | "transactional"; validityPeriod?: number }) => {
  const { data, error } = await a.client.POST("/api/v1/scheduler/schedule", {
    body: { from: "ACME", body: "sale", scheduledAt: soon(), ...body },
  });
  expect(error).toBeUndefined();
  return data!.messageId;
};
/**
 * Held, and the hold complete: the worker writes deferredUntil, then its job's snooze a moment later (batched
 * with others), so a test that reads the job or acts on it waits for both.
 */
const heldMessage = (a: TestAccount, messageId: string) =>
  waitUntil(`message ${messageId} held`, async () => {
    const m = await getMessage(a, messageId);
    return m.deferredUntil !== null && (await jobOf(messageId)).state !== "running" && m;
  });
const deliveredMessage = (a: TestAccount, messageId: string) =>
  waitUntil(`message ${messageId} delivered`, async () => {
    const m = await getMessage(a, messageId);
    return m.status === "delivered" && m;
  });
const jobOf = async (messageId: string): Promise<{ id: string; state: string; runAt: Date }> =>
  server()
    .db("jobs")
    .join("messages", "messages.job_id", "jobs.id")
    .where("messages.id", messageId)
    .first("jobs.id", "jobs.state", "jobs.run_at as runAt");

describe("quiet hours", () => {
  it("a marketing message due 21:30 in Los Angeles (the contact's zone) is held to 08:00 there the next day, across the DST change, and sent when the window ends", async () => {
    const a = await server().account();
    await withQuietHours(a);
    // A New York number: the contact's own zone comes first (New York's 08:00 would be 13:00Z).
    const contact = await a.request("POST", "/api/v1/contacts", { phone: "+12125550161", timeZone: "America/Los_Angeles" });
    expect(contact.status).toBe(201);
    pinClock("2026-11-01T04:30:00Z"); // 21:30 PDT on Oct 31; Los Angeles falls back to PST at 02:00 on Nov 1

    const { data: campaign } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "night sale", message: "sale", type: "instant", recipients: ["+12125550161"] },
    });
    expect(campaign!.category).toBe("marketing");
    const [listed] = await waitUntil("the campaign's message", async () => {
      const { data } = await a.client.GET("/api/v1/messages", { params: { query: { campaignId: campaign!.campaignId } } });
      return data!.data.length === 1 && (data!.data as Outbound[]);
    });
    const held = await heldMessage(a, listed!.messageId);
    // 08:00 PST is 16:00Z; a fixed PDT offset would say 15:00Z.
    expect(held).toMatchObject({ status: "scheduled", deferredUntil: "2026-11-01T16:00:00.000Z", sentAt: null });
    expect(await getCampaign(a, campaign!.campaignId)).toMatchObject({
      stats: { total: 1, scheduled: 1, deferred: 1, sent: 0, delivered: 0 },
      deferredUntil: "2026-11-01T16:00:00.000Z",
    });
    // Its job waits the 11.5 hours in real time; nothing went to the provider.
    const job = await jobOf(held.messageId);
    expect(job.state).toBe("available");
    expect(job.runAt.getTime() - Date.now()).toBeGreaterThan(11.4 * 3600_000);
    expect((await countSubmissionsByMessage(server().db)).get(held.messageId)).toBeUndefined();

    // The night passes: 07:59:58 PST, and the job is due. Still held, now for 2 s, then sent at 08:00.
    pinClock("2026-11-01T15:59:58Z");
    await server().db("jobs").where({ id: job.id }).update({ run_at: server().db.fn.now() });
    await notifyWorkers(server().db);
    const delivered = await deliveredMessage(a, held.messageId);
    expect(delivered.deferredUntil).toBeNull();
    expect(delivered.history.map((h) => h.status)).toEqual(["scheduled", "sent", "delivered"]);
    expect((await countSubmissionsByMessage(server().db)).get(held.messageId)).toBe(1);
    expect(await getCampaign(a, campaign!.campaignId)).toMatchObject({ stats: { deferred: 0, delivered: 1 }, deferredUntil: null });
  });

  it("never holds a transactional message, nor a marketing one of an account without quiet hours", async () => {
    pinClock("2026-06-16T05:00:00Z"); // 22:00 PDT
    const quiet = await server().account();
    await withQuietHours(quiet);
    const open = await server().account();
    const transactional = await schedule(quiet, { to: "+14155550162" });
    const marketing = await schedule(open, { to: "+14155550163", category: "marketing" });
    for (const [a, id] of [
      [quiet, transactional],
      [open, marketing],
    ] as const) {
      const m = await deliveredMessage(a, id);
      expect(m.deferredUntil).toBeNull();
    }
  });

  it("without a contact zone, the number's zone decides (+1 212: New York), not the account's default", async () => {
    pinClock("2026-06-16T10:00:00Z"); // 06:00 EDT in New York, 10:00 in UTC (the account's default)
    const a = await server().account();
    await withQuietHours(a);
    const held = await heldMessage(a, await schedule(a, { to: "+12125550164", category: "marketing" }));
    expect(held).toMatchObject({ status: "scheduled", deferredUntil: "2026-06-16T12:00:00.000Z" }); // 08:00 EDT
  });

  it("when neither the contact nor the number tells, the account's defaultTimeZone decides; changing it re-judges held messages at once", async () => {
    pinClock("2026-06-16T03:00:00Z"); // 23:00 in New York, 05:00 in Berlin, 20:00 in Los Angeles
    const a = await server().account();
    await withQuietHours(a, { defaultTimeZone: "Europe/Berlin" });
    // An Inmarsat number: the map has no zone for it.
    const held = await heldMessage(a, await schedule(a, { to: "+870773111632", category: "marketing" }));
    expect(held.deferredUntil).toBe("2026-06-16T06:00:00.000Z"); // 08:00 CEST
    // New York: still night, held again, now to 08:00 EDT.
    expect((await a.request("PATCH", "/api/v1/account/settings", { defaultTimeZone: "America/New_York" })).status).toBe(200);
    await waitUntil(
      "re-judged in New York",
      async () => (await getMessage(a, held.messageId)).deferredUntil === "2026-06-16T12:00:00.000Z",
    );
    // Los Angeles: 20:00, open; sent at once.
    expect((await a.request("PATCH", "/api/v1/account/settings", { defaultTimeZone: "America/Los_Angeles" })).status).toBe(200);
    expect((await deliveredMessage(a, held.messageId)).deferredUntil).toBeNull();
  });

  it("turning quiet hours off sends the held messages at once", async () => {
    pinClock("2026-06-16T05:00:00Z"); // 22:00 PDT
    const a = await server().account();
    await withQuietHours(a);
    const ids = [
      await schedule(a, { to: "+14155550165", category: "marketing" }),
      await schedule(a, { to: "+14155550166", category: "marketing" }),
    ];
    for (const id of ids) expect((await heldMessage(a, id)).deferredUntil).toBe("2026-06-16T15:00:00.000Z");
    expect((await a.request("PATCH", "/api/v1/account/settings", { quietHours: null })).status).toBe(200);
    for (const id of ids) expect((await deliveredMessage(a, id)).deferredUntil).toBeNull();
  });

  it("a message whose validity ends while it is held fails validity_expired at its validUntil and is never sent", async () => {
    pinClock("2026-06-16T05:00:00Z"); // 22:00 PDT
    const a = await server().account();
    await withQuietHours(a);
    const held = await heldMessage(a, await schedule(a, { to: "+14155550167", category: "marketing", validityPeriod: 3 }));
    expect(held.deferredUntil).toBe("2026-06-16T15:00:00.000Z");
    // The job waits until the validity ends, not the window.
    expect((await jobOf(held.messageId)).runAt.getTime()).toBe(Date.parse(held.validUntil!));
    const failed = await waitUntil("the held message failed", async () => {
      const m = await getMessage(a, held.messageId);
      return m.status === "failed" && m;
    });
    expect(failed).toMatchObject({ error: { code: "validity_expired" }, deferredUntil: null, sentAt: null });
    expect(failed.history.map((h) => h.status)).toEqual(["scheduled", "failed"]);
    expect((await countSubmissionsByMessage(server().db)).get(held.messageId)).toBeUndefined();
  });

  it("a held message can be cancelled, its job with it, and so can a campaign of held messages", async () => {
    pinClock("2026-06-16T05:00:00Z"); // 22:00 PDT
    const a = await server().account();
    await withQuietHours(a);
    const held = await heldMessage(a, await schedule(a, { to: "+14155550168", category: "marketing" }));
    const cancel = await a.request("DELETE", `/api/v1/scheduler/cancel/${held.messageId}`);
    expect(cancel.status).toBe(200);
    expect(await getMessage(a, held.messageId)).toMatchObject({ status: "cancelled", deferredUntil: null });
    expect((await jobOf(held.messageId)).state).toBe("cancelled");

    const { data: campaign } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "held", message: "sale", type: "instant", recipients: ["+14155550169", "+14155550170"] },
    });
    await waitUntil("both held", async () => (await getCampaign(a, campaign!.campaignId)).stats.deferred === 2);
    expect((await getCampaign(a, campaign!.campaignId)).deferredUntil).toBe("2026-06-16T15:00:00.000Z");
    expect((await a.request("POST", `/api/v1/campaigns/${campaign!.campaignId}/cancel`)).status).toBe(200);
    expect(await getCampaign(a, campaign!.campaignId)).toMatchObject({
      status: "cancelled",
      stats: { cancelled: 2, deferred: 0, scheduled: 0 },
      deferredUntil: null,
    });
    const { data } = await a.client.GET("/api/v1/messages", { params: { query: { campaignId: campaign!.campaignId } } });
    expect(data!.data.map((m) => (m as Outbound).deferredUntil)).toEqual([null, null]);
  });
});
