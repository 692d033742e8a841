// The job table's operations, called directly (each maintenance service exposes runOnce for this).
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { claimJobs, completeJobs, extendLeases, failJob, insertUntypedJobs, releaseJobs } from "../../server/db/jobs/index.js";
import { deleteFinalizedJobsChore, rescueExpiredJobsChore } from "../../server/jobs/maintenance/chores.js";
import { useTestDatabase } from "../helpers/database.js";

const database = useTestDatabase();

async function addJob(kind: string, runAt = new Date(Date.now() - 1000), maxAttempts = 3): Promise<string> {
  const id = randomUUID();
  await database().db.transaction((tx) => insertUntypedJobs(tx, [{ id, kind, payload: {}, runAt, maxAttempts }]));
  return id;
}

const stateOf = async (id: string) =>
  (await database().db("jobs").where({ id }).first()) as {
    state: string;
    attempt: number;
    locked_by: string | null;
    locked_until: Date | null;
    run_at: Date;
  };

describe("the job table", () => {
  it("claims only due jobs, each for one worker, and says when the next is due", async () => {
    const { db } = database();
    const due = await addJob("claim-test");
    await addJob("claim-test", new Date(Date.now() + 60_000));
    const [a, b] = await Promise.all([claimJobs(db, "A", 10, 10_000), claimJobs(db, "B", 10, 10_000)]);
    const claimed = [...a.jobs, ...b.jobs].filter((j) => j.kind === "claim-test");
    expect(claimed.map((j) => j.id)).toEqual([due]);
    expect(a.nextDueInMs! > 50_000 || b.nextDueInMs! > 50_000).toBe(true);
  });

  it("a worker whose lease expired cannot complete the job once it was rescued and claimed again", async () => {
    const { db } = database();
    const id = await addJob("lease-test");
    const first = await claimJobs(db, "A", 100, 10_000);
    expect(first.jobs.map((j) => j.id)).toContain(id);
    await db("jobs")
      .where({ id })
      .update({ locked_until: new Date(Date.now() - 1) }); // A stopped heart-beating
    expect(await rescueExpiredJobsChore(db).runOnce()).toBeGreaterThanOrEqual(1);
    expect((await stateOf(id)).state).toBe("retryable");
    const second = await claimJobs(db, "B", 100, 10_000);
    expect(second.jobs.map((j) => j.id)).toContain(id);
    expect(await completeJobs(db, "A", [id])).toBe(0);
    expect((await stateOf(id)).locked_by).toBe("B");
    expect(await completeJobs(db, "B", [id])).toBe(1);
    expect(await stateOf(id)).toBeUndefined(); // a job that succeeded is deleted at once
  });

  it("the heartbeat never waits for a row another statement holds: it extends the rest and counts that one held", async () => {
    const { db } = database();
    await db("jobs").del();
    const [a, b] = [await addJob("lease-test"), await addJob("lease-test")];
    await claimJobs(db, "H", 10, 1_000);
    const before = await stateOf(a);
    // A completion of the same worker holds b's row (it deadlocked with the heartbeat when both waited).
    await db.transaction(async (t) => {
      await t.raw("SELECT 1 FROM jobs WHERE id = ? FOR UPDATE", [b]);
      // Were the heartbeat to wait for b, this would never return while t holds it.
      expect((await extendLeases(db, "H", [b, a], 60_000)).sort()).toEqual([a, b].sort());
    });
    const [after, other] = await Promise.all([stateOf(a), stateOf(b)]);
    expect(after.locked_until!.getTime()).toBeGreaterThan(before.locked_until!.getTime() + 30_000);
    expect(other.locked_by).toBe("H");
    expect(await extendLeases(db, "other-worker", [a, b], 60_000)).toEqual([]);
  });

  it("retries a failed job at the given time and discards it after its last attempt", async () => {
    const { db } = database();
    const id = await addJob("fail-test", undefined, 2);
    await claimJobs(db, "A", 100, 10_000);
    const retryAt = new Date(Date.now() + 30_000);
    await failJob(db, "A", id, "boom", retryAt);
    expect(await stateOf(id)).toMatchObject({ state: "retryable", attempt: 1, run_at: retryAt });
    await db("jobs")
      .where({ id })
      .update({ run_at: new Date(Date.now() - 1) });
    await claimJobs(db, "A", 100, 10_000);
    await failJob(db, "A", id, "boom again", new Date());
    expect(await stateOf(id)).toMatchObject({ state: "discarded", attempt: 2 });
    const row = await db("jobs").where({ id }).first();
    expect(row.errors.map((e: { error: string }) => e.error)).toEqual(["boom", "boom again"]);
  });

  it("hands jobs back on release without using an attempt", async () => {
    const { db } = database();
    const id = await addJob("release-test");
    await claimJobs(db, "C", 100, 10_000);
    expect(await releaseJobs(db, "C")).toBeGreaterThanOrEqual(1);
    expect(await stateOf(id)).toMatchObject({ state: "available", attempt: 0, locked_by: null });
  });

  it("the cleaner deletes finished (failed, cancelled) jobs older than the retention, and no others", async () => {
    const { db } = database();
    const old = await addJob("clean-test");
    const recent = await addJob("clean-test");
    await claimJobs(db, "D", 100, 10_000);
    for (const id of [old, recent]) await failJob(db, "D", id, "gave up", null);
    await db("jobs")
      .where({ id: old })
      .update({ finalized_at: new Date(Date.now() - 2 * 3600_000) });
    await deleteFinalizedJobsChore(db, 3600_000).runOnce();
    expect(await db("jobs").where({ id: old }).first()).toBeUndefined();
    expect((await stateOf(recent)).state).toBe("discarded");
  });
});

describe("a job inserted without an account (by a worker of the previous release, migration 019)", () => {
  it("gets its account at its claim, from the row its payload names, for every kind that names one", async () => {
    const { db } = database();
    const [account] = await db("accounts")
      .insert({ name: `legacy-${randomUUID()}` })
      .returning("id");
    const accountId = account.id as string;
    const messageId = randomUUID();
    await db("messages").insert({
      id: messageId,
      account_id: accountId,
      job_id: randomUUID(),
      recipient: "+14155550100",
      sender: "ACME",
      body: "hi",
      scheduled_at: new Date(),
      segments: 1,
      encoding: "GSM-7",
      status: "sent",
      provider_message_id: `legacy-${messageId}`,
    });
    const [webhook] = await db("webhooks")
      .insert({ account_id: accountId, name: "w", url: "https://example.com/", secret: "whsec_x" })
      .returning("id");
    const [delivery] = await db("webhook_deliveries")
      .insert({
        id: randomUUID(),
        webhook_id: webhook.id,
        account_id: accountId,
        message_id: messageId,
        event: "dlr.sent",
        seq: 1,
        body: "{}",
      })
      .returning("id");
    const [campaign] = await db("campaigns")
      .insert({ account_id: accountId, name: "c", message: "x", type: "instant", sender: "ACME", status: "sending" })
      .returning("id");
    // As the previous release inserts them: no account_id column at all.
    const legacy = {
      send_message: { messageId },
      deliver_receipt: { deliveryId: delivery.id },
      campaign_fanout: { campaignId: campaign.id },
      provider_report: { providerMessageId: `legacy-${messageId}`, status: "delivered" },
      smpp_receipt: { segmentId: "unknown", stat: "DELIVRD", err: null, at: new Date().toISOString() },
    };
    const due = new Date(Date.now() - 1000);
    await db("jobs").insert(Object.entries(legacy).map(([kind, payload]) => ({ kind, payload, run_at: due, max_attempts: 3 })));
    // Both claims: by lane (the workers') and over every lane.
    const byLane = [
      ...(await claimJobs(db, "L", 100, 10_000, "default")).jobs,
      ...(await claimJobs(db, "L", 100, 10_000, "receipts")).jobs,
    ];
    const all = (await claimJobs(db, "A", 100, 10_000)).jobs;
    const accounts = new Map([...byLane, ...all].filter((j) => j.kind in legacy).map((j) => [j.kind, j.accountId]));
    expect(Object.fromEntries(accounts)).toEqual({
      send_message: accountId,
      deliver_receipt: accountId,
      campaign_fanout: accountId,
      provider_report: accountId,
      smpp_receipt: null, // a carrier's receipt names no account
    });
    // Filled once, in the row.
    expect(await db("jobs").whereIn("kind", Object.keys(legacy)).whereNotNull("account_id").count({ n: "*" })).toEqual([{ n: 4 }]);
  });
});
