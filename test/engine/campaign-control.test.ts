// Campaign control (docs/API.md, "Pause and resume", "Duplicate"), with a real in-process worker over the
// simulator: a paused campaign sends nothing more (its waiting jobs parked, a job that comes due anyway refused
// by the send claim, fan-out stopped) until resumed; a duplicate is a draft that makes nothing until resumed.
import { afterEach, describe, expect, it } from "vitest";
import { updateAccountSettings } from "../../server/db/accountSettings.js";
import type { Db } from "../../server/db/knex.js";
import { notifyWorkers } from "../../server/db/jobs/index.js";
import { createLogger } from "../../server/logger.js";
import { startWorker, type Worker } from "../../server/worker.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

const server = useTestServer({ ...fastWorkerConfig, throughputPacerMs: 50 });
let workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.map((w) => w.stop(2_000)));
  workers = [];
});

async function startOne(): Promise<Worker> {
  const s = server();
  const w = await startWorker({
    db: s.db,
    databaseUrl: s.url,
    log: createLogger(process.env.TEST_LOG_LEVEL ?? "silent"),
    config: s.config,
  });
  workers.push(w);
  return w;
}

const recipients = (n: number, from = 100) => Array.from({ length: n }, (_v, i) => `+1415555${String(from + i).padStart(4, "0")}`);
const get = async (a: TestAccount, campaignId: string) =>
  (await a.client.GET("/api/v1/campaigns/{campaignId}", { params: { path: { campaignId } } })).data!;
const control = async (a: TestAccount, campaignId: string, verb: "pause" | "resume") => {
  const res = await a.request("POST", `/api/v1/campaigns/${campaignId}/${verb}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Awaited<ReturnType<typeof get>>;
};

/** The campaign's scheduled messages with their jobs' state and how far ahead they run. */
async function waitingJobs(db: Db, campaignId: string) {
  const { rows } = await db.raw(
    `SELECT m.id, j.state, EXTRACT(EPOCH FROM j.run_at - now())::float8 AS "inSeconds"
       FROM messages m JOIN jobs j ON j.id = m.job_id WHERE m.campaign_id = ? AND m.status = 'scheduled'`,
    [campaignId],
  );
  return rows as { id: string; state: string; inSeconds: number }[];
}
const submittedOf = async (db: Db, ids: string[]) =>
  Number((await db("simulator_submissions").whereIn("message_id", ids).count({ n: "*" }))[0]!.n);

describe("campaign control", () => {
  // Sixteen messages at 4 a second around a pause, on a machine the rest of the suite keeps busy: its own timeout.
  it("a paused campaign sends nothing more until resumed, then sends the rest and completes", { timeout: 120_000 }, async () => {
    const { db } = server();
    const a = await server().account();
    await updateAccountSettings(db, a.accountId, { maxSegmentsPerSecond: 4 });
    await startOne();
    const { data: created } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "slow", message: "Sale", type: "instant", recipients: recipients(16) },
    });
    const id = created!.campaignId;
    await waitUntil("a first message delivered", async () => (await get(a, id)).stats.delivered > 0);
    const paused = await control(a, id, "pause");
    expect(paused).toMatchObject({ status: "paused" });
    expect(paused.pausedAt).not.toBeNull();
    expect((await control(a, id, "pause")).pausedAt).toBe(paused.pausedAt); // a repeat answers the same

    // Every message still scheduled waits: its job parked (or, held by a worker at the pause, snoozed).
    const parked = await waitUntil("every waiting job parked", async () => {
      const jobs = await waitingJobs(db, id);
      return jobs.length > 0 && jobs.every((j) => j.state === "available" && j.inSeconds > 30) && jobs;
    });
    const stats = (await get(a, id)).stats;
    expect(stats.scheduled).toBe(parked.length);
    expect(stats.delivered + stats.sent + stats.scheduled).toBe(16);

    // One made due anyway (as a job a worker held at the pause comes back): the claim refuses it, it waits.
    const [forced] = parked;
    await db("jobs")
      .where({ id: db.raw("(SELECT job_id FROM messages WHERE id = ?)", [forced!.id]) })
      .update({ run_at: db.fn.now() });
    await notifyWorkers(db);
    await waitUntil("the forced job snoozed again", async () => {
      const job = (await waitingJobs(db, id)).find((j) => j.id === forced!.id);
      return job?.state === "available" && job.inSeconds > 30;
    });
    expect(
      await submittedOf(
        db,
        parked.map((j) => j.id),
      ),
    ).toBe(0);

    const resumed = await control(a, id, "resume");
    expect(resumed).toMatchObject({ status: "sending", pausedAt: null });
    // The rest at 4 a second, on a machine that may be busy: more than the default wait.
    const done = await waitUntil(
      "completed",
      async () => {
        const c = await get(a, id);
        return c.status === "completed" && c;
      },
      60_000,
    );
    expect(done.stats).toMatchObject({ total: 16, delivered: 16, scheduled: 0, failed: 0 });
    expect(
      await submittedOf(
        db,
        parked.map((j) => j.id),
      ),
    ).toBe(parked.length);
    // Over: neither pause nor resume applies any more.
    for (const verb of ["pause", "resume"]) {
      const res = await a.request("POST", `/api/v1/campaigns/${id}/${verb}`);
      expect(res.status).toBe(409);
      expect(((await res.json()) as { code: string }).code).toBe("campaign_finished");
    }
  });

  it("validity still applies while paused: a message whose validity ends then fails validity_expired", async () => {
    const { db } = server();
    const a = await server().account();
    await updateAccountSettings(db, a.accountId, { maxSegmentsPerSecond: 1 });
    await startOne();
    const { data: created } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "brief", message: "Now or never", type: "instant", recipients: recipients(6, 200), validityPeriod: 4 },
    });
    const id = created!.campaignId;
    await waitUntil("a first message delivered", async () => (await get(a, id)).stats.delivered > 0);
    await control(a, id, "pause");
    const c = await waitUntil("the rest failed at their validity's end", async () => {
      const c = await get(a, id);
      return c.stats.scheduled === 0 && c;
    });
    expect(c.status).toBe("paused");
    expect(c.stats.failed).toBeGreaterThan(0);
    const failed = await db("messages").where({ campaign_id: id, status: "failed" }).distinct("error_code");
    expect(failed).toEqual([{ error_code: "validity_expired" }]);
  });

  it("paused before fan-out ran, makes no message; resumed, fans out and delivers", async () => {
    const { db } = server();
    const a = await server().account();
    const { data: created } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "held", message: "Hello", type: "instant", recipients: recipients(5, 300) },
    });
    const id = created!.campaignId;
    await control(a, id, "pause"); // no worker yet: its fan-out job has not run
    await startOne();
    await waitUntil("fan-out ran and stopped", async () => {
      const left = await db("jobs").where({ kind: "campaign_fanout", account_id: a.accountId }).count({ n: "*" });
      return Number(left[0]!.n) === 0;
    });
    expect(Number((await db("messages").where({ campaign_id: id }).count({ n: "*" }))[0]!.n)).toBe(0);
    expect((await get(a, id)).stats).toMatchObject({ total: 5, scheduled: 5 });
    await control(a, id, "resume");
    const done = await waitUntil("completed", async () => {
      const c = await get(a, id);
      return c.status === "completed" && c;
    });
    expect(done.stats).toMatchObject({ total: 5, delivered: 5 });
  });

  it("a duplicate is a draft with the same text and audience; it makes nothing until resumed", async () => {
    const { db } = server();
    const a = await server().account();
    await startOne();
    const { data: original } = await a.client.POST("/api/v1/campaigns", {
      body: {
        name: "Weekly",
        message: "Hi {{lastName}}",
        fallbacks: { lastName: "friend" },
        type: "instant",
        recipients: recipients(3, 500),
        priority: "normal",
        reference: "wk",
      },
    });
    await waitUntil("original completed", async () => (await get(a, original!.campaignId)).status === "completed");
    const res = await a.request("POST", `/api/v1/campaigns/${original!.campaignId}/duplicate`, {});
    expect(res.status).toBe(201);
    const copy = (await res.json()) as Awaited<ReturnType<typeof get>>;
    expect(copy).toMatchObject({
      name: "Weekly (copy)",
      status: "draft",
      type: "instant",
      message: "Hi {{lastName}}",
      fallbacks: { lastName: "friend" },
      priority: "normal",
      reference: "wk",
      groupId: null,
    });
    expect(copy.stats).toMatchObject({ total: 3, scheduled: 3 });
    expect(copy.campaignId).not.toBe(original!.campaignId);
    // Nothing made: its fan-out waits for the resume.
    expect(Number((await db("jobs").where({ kind: "campaign_fanout", account_id: a.accountId }).count({ n: "*" }))[0]!.n)).toBe(0);
    const pauseDraft = await a.request("POST", `/api/v1/campaigns/${copy.campaignId}/pause`);
    expect(pauseDraft.status).toBe(409);
    expect(((await pauseDraft.json()) as { code: string }).code).toBe("campaign_draft");

    expect((await control(a, copy.campaignId, "resume")).status).toBe("sending");
    const done = await waitUntil("the copy completed", async () => {
      const c = await get(a, copy.campaignId);
      return c.status === "completed" && c;
    });
    expect(done.stats).toMatchObject({ total: 3, delivered: 3 });
    const { data: page } = await a.client.GET("/api/v1/messages", { params: { query: { campaignId: copy.campaignId } } });
    expect(page!.data.map((m) => m.to).sort()).toEqual(recipients(3, 500));
    expect(new Set(page!.data.map((m) => m.body))).toEqual(new Set(["Hi friend"]));
  });

  it("a duplicate with scheduledAt is a scheduled draft; resumed, it waits for its time; cancelled, it is over", async () => {
    const a = await server().account();
    const { data: original } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "x".repeat(100), message: "Hi", type: "instant", recipients: recipients(2, 700) },
    });
    const at = new Date(Date.now() + 3600_000).toISOString();
    const res = await a.request("POST", `/api/v1/campaigns/${original!.campaignId}/duplicate`, { scheduledAt: at, name: "Later" });
    const copy = (await res.json()) as Awaited<ReturnType<typeof get>>;
    expect(res.status).toBe(201);
    expect(copy).toMatchObject({ name: "Later", type: "scheduled", status: "draft", scheduledAt: at });
    expect((await control(a, copy.campaignId, "resume")).status).toBe("scheduled");
    const paused = await control(a, copy.campaignId, "pause");
    expect(paused.status).toBe("paused");
    const cancelled = await a.request("POST", `/api/v1/campaigns/${copy.campaignId}/cancel`);
    expect(((await cancelled.json()) as { status: string }).status).toBe("cancelled");
    // A long name keeps within 100 characters with its " (copy)".
    const long = (await (await a.request("POST", `/api/v1/campaigns/${original!.campaignId}/duplicate`, {})).json()) as { name: string };
    expect(long.name).toBe(`${"x".repeat(93)} (copy)`);
  });

  it("a draft is edited before it starts: renamed and given a time, it stays a draft; started, it waits for that time", async () => {
    const a = await server().account();
    const { data: original } = await a.client.POST("/api/v1/campaigns", {
      body: { name: "Spring", message: "Hi", type: "instant", recipients: recipients(2, 760) },
    });
    const draft = (await (await a.request("POST", `/api/v1/campaigns/${original!.campaignId}/duplicate`, {})).json()) as Awaited<
      ReturnType<typeof get>
    >;
    expect(draft).toMatchObject({ type: "instant", status: "draft", scheduledAt: null });
    const at = new Date(Date.now() + 2 * 3600_000).toISOString();
    const edited = await a.request("PATCH", `/api/v1/campaigns/${draft.campaignId}`, { name: "Spring, again", scheduledAt: at });
    expect(edited.status).toBe(200);
    expect(await edited.json()).toMatchObject({ name: "Spring, again", type: "scheduled", status: "draft", scheduledAt: at });
    // A time in the past is refused as for any campaign, and the draft is unchanged.
    const past = await a.request("PATCH", `/api/v1/campaigns/${draft.campaignId}`, {
      scheduledAt: new Date(Date.now() - 60_000).toISOString(),
    });
    expect(past.status).toBe(422);
    expect((await get(a, draft.campaignId)).scheduledAt).toBe(at);
    await startOne();
    expect((await control(a, draft.campaignId, "resume")).status).toBe("scheduled");
    // Fan-out makes its two messages, each due at the draft's time.
    const made = await waitUntil("the draft's messages made", async () => {
      const { data: page } = await a.client.GET("/api/v1/messages", { params: { query: { campaignId: draft.campaignId } } });
      return page!.data.length === 2 && page!.data;
    });
    expect(made.map((m) => [m.status, m.direction === "outbound" && m.scheduledAt])).toEqual([
      ["scheduled", at],
      ["scheduled", at],
    ]);
    // Started, it is no draft any more: a paused campaign does not move.
    await control(a, draft.campaignId, "pause");
    const moved = await a.request("PATCH", `/api/v1/campaigns/${draft.campaignId}`, { scheduledAt: at });
    expect(moved.status).toBe(409);
  });
});
