// Lanes and per-job settling in the job runner: a claim takes one lane's jobs by an index walk, a lane's slots
// are its own, and a batch handler frees each job's slot when that job ends, not when its batch does.
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { claimJobs, insertUntypedJobs, JOBS_CHANNEL, type ClaimedJob } from "../../server/db/jobs/index.js";
import { JobRunner, type RunnerOptions } from "../../server/jobs/runner.js";
import { createLogger } from "../../server/logger.js";
import { useTestDatabase } from "../helpers/database.js";
import { laneClaimPlan } from "../helpers/explain.js";
import { waitUntil } from "../helpers/wait.js";

const database = useTestDatabase();
const runners: JobRunner[] = [];
const releases: (() => void)[] = [];
afterEach(async () => {
  releases.splice(0).forEach((r) => r());
  await Promise.all(runners.splice(0).map((r) => r.stop(1000)));
  await database().db("jobs").del();
});

async function addJobs(kind: string, n: number, runAt = new Date(Date.now() - 1000)): Promise<string[]> {
  const jobs = Array.from({ length: n }, () => ({ id: randomUUID(), kind, payload: {}, runAt, maxAttempts: 3 }));
  await database().db.transaction((tx) => insertUntypedJobs(tx, jobs));
  return jobs.map((j) => j.id);
}

async function startRunner(opts: Partial<RunnerOptions>): Promise<JobRunner> {
  const { db, url } = database();
  const runner = new JobRunner({ db, databaseUrl: url, log: createLogger("silent"), handlers: {}, safetyPollMs: 200, ...opts });
  runners.push(runner);
  await runner.start();
  return runner;
}

/** A promise the test resolves later: a job that hangs until then. */
function gate(): Promise<void> {
  return new Promise<void>((resolve) => releases.push(resolve));
}

describe("lanes", () => {
  it("a lane's claim walks its own part of the index: one due send behind 5,000 due receipts is claimed at once", async () => {
    const { db } = database();
    await addJobs("deliver_receipt", 5000, new Date(Date.now() - 60_000));
    const [send] = await addJobs("send_message", 1);
    await db.raw("ANALYZE jobs");
    const claim = await claimJobs(db, "W", 10, 10_000, "default");
    expect(claim.jobs.map((j) => j.id)).toEqual([send]);
    const receipts = await claimJobs(db, "W", 10, 10_000, "receipts");
    expect(receipts.jobs.map((j) => j.kind)).toEqual(Array(10).fill("deliver_receipt"));

    // The plan of the claim's inner select, as the function runs it: an ordered walk of the lane index that
    // reads only the rows it returns (no sort, no filter over the other lane's rows).
    const plan = await laneClaimPlan(db, "default", 10);
    expect(plan).toContain("jobs_lane_priority_claim_idx");
    expect(plan).not.toContain('"Node Type":"Sort"');
    expect(plan).not.toMatch(/"Rows Removed by Filter":[1-9]/);
  });

  it("the claim tells when the lane's next job is due, whatever its priority, not counting the other lane", async () => {
    const { db } = database();
    const inMs = (ms: number) => new Date(Date.now() + ms);
    await addJobs("deliver_receipt", 1, inMs(5_000)); // the other lane: not this lane's next job
    const [low] = await addJobs("send_message", 1, inMs(60_000));
    await db("jobs").where({ id: low }).update({ priority: 2 });
    const empty = await claimJobs(db, "W", 10, 10_000, "default");
    expect(empty.jobs).toEqual([]);
    expect(empty.nextDueInMs).toBeGreaterThan(50_000);
    const [high] = await addJobs("send_message", 1, inMs(30_000));
    await db("jobs").where({ id: high }).update({ priority: 0 });
    const next = await claimJobs(db, "W", 10, 10_000, "default");
    expect(next.nextDueInMs).toBeGreaterThan(20_000);
    expect(next.nextDueInMs).toBeLessThanOrEqual(30_000);
    expect((await claimJobs(db, "W", 10, 10_000, "receipts")).nextDueInMs).toBeLessThanOrEqual(5_000);
  });

  it("receipt deliveries that hang do not take the slots of sends", async () => {
    const sent: string[] = [];
    await startRunner({
      lanes: [
        { lane: "default", concurrency: 2 },
        { lane: "receipts", concurrency: 4 },
      ],
      handlers: {
        deliver_receipt: () => gate(),
        send_message: async (job: ClaimedJob) => void sent.push(job.id),
      },
    });
    await addJobs("deliver_receipt", 20);
    await waitUntil("the receipts lane full", async () => releases.length === 4);
    const sends = await addJobs("send_message", 5);
    await waitUntil("every send run", async () => sends.every((id) => sent.includes(id)), 5000);
    expect(releases.length).toBe(4); // the receipts lane never ran more than its own slots
  });

  it("a NOTIFY naming a lane wakes only that lane; one without a lane wakes every lane", async () => {
    const { db } = database();
    const ran: string[] = [];
    const insertQuietly = async (kind: string) => {
      const id = randomUUID();
      await db("jobs").insert({ id, kind, payload: {}, run_at: new Date(Date.now() - 1000), max_attempts: 3 });
      return id;
    };
    // One job per lane before the runner starts: once both have run, each lane's first claim is over and found
    // the lane dry (one job of two asked for), so from then on only a NOTIFY makes a lane look.
    const first = { receipt: await insertQuietly("deliver_receipt"), send: await insertQuietly("send_message") };
    await startRunner({
      safetyPollMs: 60_000, // neither lane looks again on its own during the test
      lanes: [
        { lane: "default", concurrency: 2 },
        { lane: "receipts", concurrency: 2 },
      ],
      handlers: {
        deliver_receipt: async (job: ClaimedJob) => void ran.push(`receipt ${job.id}`),
        send_message: async (job: ClaimedJob) => void ran.push(`send ${job.id}`),
      },
    });
    await waitUntil("each lane's first claim", async () => ran.includes(`receipt ${first.receipt}`) && ran.includes(`send ${first.send}`));
    const receipt = await insertQuietly("deliver_receipt");
    const send = await insertQuietly("send_message");
    await db.raw("SELECT pg_notify(?, ?)", [JOBS_CHANNEL, `${Date.now()}@receipts`]);
    await waitUntil("the receipt to run", async () => ran.includes(`receipt ${receipt}`));
    await db.raw("SELECT pg_notify(?, ?)", [JOBS_CHANNEL, "@receipts"]); // the other lane, again: still not the send
    const another = await insertQuietly("deliver_receipt");
    await db.raw("SELECT pg_notify(?, ?)", [JOBS_CHANNEL, "@receipts"]);
    await waitUntil("the second receipt to run", async () => ran.includes(`receipt ${another}`));
    expect(ran).not.toContain(`send ${send}`);
    await db.raw("SELECT pg_notify(?, '')", [JOBS_CHANNEL]);
    await waitUntil("the send to run", async () => ran.includes(`send ${send}`));
  });
});

describe("per-job settling", () => {
  it("frees a batch job's slot when that job is settled, while its neighbour in the batch still runs", async () => {
    const started: string[] = [];
    let hanging: string | undefined;
    const runner = await startRunner({
      concurrency: 2,
      handlers: {
        pair: {
          batch: async (jobs: ClaimedJob[], ctx: { settle: (i: number, outcome: Error | undefined) => void }) => {
            started.push(...jobs.map((j) => j.id));
            ctx.settle(0, undefined); // the first ends at once; the second hangs
            hanging = jobs[1]!.id;
            await gate();
            return jobs.map(() => undefined);
          },
        },
        single: async (job: ClaimedJob) => void started.push(job.id),
      } as never,
    });
    const pair = await addJobs("pair", 2);
    await waitUntil("the pair started", async () => pair.every((id) => started.includes(id)));
    const [single] = await addJobs("single", 1);
    await waitUntil("the single job ran in the freed slot", async () => started.includes(single!), 5000);
    expect(runner.busy).toBe(1); // the hanging one only
    const left = await database().db("jobs").whereIn("id", pair).select("id");
    expect(left.map((r) => r.id)).toEqual([hanging]); // the settled one was completed (deleted) already
  });

  it("a batch handler that does not settle keeps the old contract: outcomes returned end every job", async () => {
    let failedId: string | undefined;
    const runner = await startRunner({
      concurrency: 3,
      handlers: {
        plain: {
          batch: async (jobs: ClaimedJob[]) => {
            failedId = jobs[0]!.id;
            return jobs.map((_, i) => (i === 0 ? new Error("boom") : undefined));
          },
        },
      } as never,
    });
    const ids = await addJobs("plain", 3);
    await waitUntil("all ended", async () => runner.busy === 0 && (await database().db("jobs").whereIn("id", ids)).length === 1);
    const [failed] = await database().db("jobs").whereIn("id", ids).select("id", "state");
    expect(failed).toEqual({ id: failedId, state: "retryable" });
  });
});
