// Priority: an account's due sends go to the provider high before normal before low, then by scheduledAt (between
// accounts the fair claim shares: fair-shares.test.ts). The lane claim is an ordered index walk per priority (EXPLAIN), and a real worker over the simulator sends a high message due now
// before a backlog of low campaign messages due earlier.
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import type { components } from "../../generated/api.js";
import { claimJobs, type JobRow } from "../../server/db/jobs/index.js";
import { campaignFanoutHandler } from "../../server/jobs/handlers/campaignFanout.js";
import { createLogger } from "../../server/logger.js";
import { startWorker, type Worker } from "../../server/worker.js";
import { laneClaimPlan } from "../helpers/explain.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

type Outbound = components["schemas"]["OutboundMessage"];
const server = useTestServer({ ...fastWorkerConfig, workerConcurrency: 1 });
let worker: Worker | undefined;
afterAll(async () => {
  await worker?.stop(2_000);
});

const getMessage = async (a: TestAccount, messageId: string) =>
  (await a.client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId } } })).data! as Outbound;

describe("priority", () => {
  it("category and priority default per endpoint, are stored, and are returned on messages", async () => {
    const a = await server().account();
    const scheduledAt = new Date(Date.now() + 3_600_000).toISOString();
    const { data: plain } = await a.client.POST("/api/v1/scheduler/schedule", {
      body: { to: "+14155550170", body: "x", from: "ACME", scheduledAt },
    });
    const { data: set } = await a.client.POST("/api/v1/scheduler/schedule", {
      body: { to: "+14155550170", body: "x", from: "ACME", scheduledAt, category: "marketing", priority: "high" },
    });
    expect(await getMessage(a, plain!.messageId)).toMatchObject({ category: "transactional", priority: "normal" });
    expect(await getMessage(a, set!.messageId)).toMatchObject({ category: "marketing", priority: "high" });
    const bad = await a.request("POST", "/api/v1/scheduler/schedule", {
      to: "+14155550170",
      body: "x",
      from: "ACME",
      scheduledAt,
      priority: "urgent",
    });
    expect(bad.status).toBe(400);
    const badCampaign = await a.request("POST", "/api/v1/campaigns", {
      name: "c",
      message: "x",
      type: "instant",
      recipients: ["+14155550170"],
      category: "promo",
    });
    expect(badCampaign.status).toBe(400);

    // Campaigns: marketing / low by default, or as given; fan-out (run here, as the worker runs it) copies them.
    const fanOut = (campaignId: string) =>
      campaignFanoutHandler(server().db)({ payload: { campaignId }, accountId: a.accountId } as JobRow<"campaign_fanout">, {
        workerId: "test",
        log: createLogger("silent"),
        signal: new AbortController().signal,
        settle: () => {},
        handoff: () => undefined,
      });
    const { data: byDefault } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "d", message: "x", type: "scheduled", scheduledAt, recipients: ["+14155550171"] },
    });
    const { data: given } = await a.client.POST("/api/v1/campaigns", {
      body: {
        name: "g",
        message: "x",
        type: "scheduled",
        scheduledAt,
        recipients: ["+14155550172"],
        category: "transactional",
        priority: "high",
      },
    });
    expect(byDefault).toMatchObject({ category: "marketing", priority: "low", validityPeriod: null });
    expect(given).toMatchObject({ category: "transactional", priority: "high" });
    const { data: read } = await a.client.GET("/api/v1/campaigns/{campaignId}", { params: { path: { campaignId: given!.campaignId } } });
    expect(read).toMatchObject({ category: "transactional", priority: "high" });
    await fanOut(byDefault!.campaignId);
    await fanOut(given!.campaignId);
    const only = async (campaignId: string) =>
      ((await a.client.GET("/api/v1/messages", { params: { query: { campaignId } } })).data!.data as Outbound[])[0]!;
    expect(await only(byDefault!.campaignId)).toMatchObject({ category: "marketing", priority: "low" });
    expect(await only(given!.campaignId)).toMatchObject({ category: "transactional", priority: "high" });
  });

  it("the lane claim takes an account's high before its normal before its low, each an ordered index walk that reads only what it takes", async () => {
    const { db } = server();
    const { accountId } = await server().account();
    const insert = (n: number, priority: number, runAt: string) =>
      db.raw(
        `INSERT INTO jobs (id, kind, payload, max_attempts, run_at, priority, account_id)
         SELECT gen_random_uuid(), 'test_priority', '{}'::jsonb, 3, ${runAt}, ?, ? FROM generate_series(1, ?)`,
        [priority, accountId, n],
      );
    await insert(5000, 2, "now() - make_interval(secs => 10 + generate_series)"); // low, all due, the earliest long ago
    await insert(2000, 0, "now() + interval '1 hour'"); // high, not due yet
    const high = randomUUID();
    const normal = randomUUID();
    await db.raw(
      `INSERT INTO jobs (id, kind, payload, max_attempts, run_at, priority, account_id)
       VALUES (?, 'test_priority', '{}', 3, now(), 0, ?), (?, 'test_priority', '{}', 3, now() - interval '1 minute', 1, ?)`,
      [high, accountId, normal, accountId],
    );
    await db.raw("ANALYZE jobs");

    const plan = await laneClaimPlan(db, "default", 10);
    expect(plan).toContain("jobs_lane_priority_claim_idx");
    expect(plan).not.toContain('"Node Type":"Sort"');
    expect(plan).not.toMatch(/"Rows Removed by Filter":[1-9]/);

    // The earlier test's campaign fan-outs (normal, due; another account) share the window: only this test's
    // jobs are looked at, at least half of the 20.
    const claim = (await claimJobs(db, "W", 20, 10_000, "default")).jobs.filter((j) => j.kind === "test_priority");
    expect(claim.slice(0, 2).map((j) => j.id)).toEqual([high, normal]);
    const lows = claim.slice(2).map((j) => j.runAt.getTime());
    expect(lows.length).toBeGreaterThanOrEqual(8);
    expect(lows).toEqual([...lows].sort((x, y) => x - y));
    // The earliest lows: due 5,010 s ago and onward.
    expect(Date.now() - lows[0]!).toBeGreaterThan(5000 * 1000);
    await db("jobs").where({ kind: "test_priority" }).del();
  });

  it("with one worker, a high message due now goes to the provider before a backlog of low campaign messages due earlier", async () => {
    const a = await server().account();
    const recipients = Array.from({ length: 200 }, (_, i) => `+1415555${String(2000 + i)}`);
    const { data: campaign } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "backlog", message: "sale", type: "scheduled", scheduledAt: new Date(Date.now() + 1000).toISOString(), recipients },
    });
    // Fan-out runs here, before any worker exists, so the whole backlog is waiting when the worker starts.
    await campaignFanoutHandler(server().db)(
      { payload: { campaignId: campaign!.campaignId }, accountId: a.accountId } as JobRow<"campaign_fanout">,
      {
        workerId: "test",
        log: createLogger("silent"),
        signal: new AbortController().signal,
        settle: () => {},
        handoff: () => undefined,
      },
    );
    const highAt = new Date(Date.now() + 1500);
    const { data: code } = await a.client.POST("/api/v1/scheduler/schedule", {
      body: { to: "+14155550179", body: "code 1234", from: "ACME", scheduledAt: highAt.toISOString(), priority: "high" },
    });
    const backlog = (await a.client.GET("/api/v1/messages", { params: { query: { campaignId: campaign!.campaignId, limit: 100 } } })).data!;
    expect((backlog.data[0] as Outbound).priority).toBe("low");
    expect(new Date((backlog.data[0] as Outbound).scheduledAt).getTime()).toBeLessThan(highAt.getTime());
    await waitUntil("everything due", async () => Date.now() > highAt.getTime() + 20);

    const s = server();
    worker = await startWorker({
      db: s.db,
      databaseUrl: s.url,
      log: createLogger(process.env.TEST_LOG_LEVEL ?? "silent"),
      config: s.config,
    });
    const order = await waitUntil("every message submitted", async () => {
      const rows: { messageId: string }[] = await s
        .db("simulator_submissions as s")
        .join("messages as m", "m.id", "s.message_id")
        .where("m.account_id", a.accountId)
        .orderBy("s.id")
        .select({ messageId: "s.message_id" });
      return rows.length === 201 && rows.map((r) => r.messageId);
    });
    expect(order[0]).toBe(code!.messageId);
  });
});
