// The handoff: a status change made by a worker's job inserts the receipt jobs already claimed for that worker's
// receipts lane (running, first attempt, its lease), as many as the lane's local queue has room for, and hands
// them over: no claim and no NOTIFY for them. The rest are inserted claimable, with the NOTIFY. A worker that
// dies holding handed-over jobs loses them to the rescuer like any claimed job.
import { afterEach, describe, expect, it } from "vitest";
import { ensureAccount } from "../../server/operator/index.js";
import { JOBS_CHANNEL, rescueExpiredJobs, type ClaimedJob } from "../../server/db/jobs/index.js";
import { updateStatusesWithReceipts } from "../../server/db/messages/index.js";
import { JobRunner } from "../../server/jobs/runner.js";
import type { JobContext } from "../../server/jobs/types.js";
import { createLogger } from "../../server/logger.js";
import { changeMessageStatuses, type MessageFacts } from "../../server/services/statusChanges.js";
import { useTestDatabase } from "../helpers/database.js";
import { waitUntil } from "../helpers/wait.js";
import { listenForWakeUps, type WakeUps } from "../helpers/wakeUps.js";

const database = useTestDatabase();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  await database().db("jobs").del();
});

/** An account with one webhook and `n` messages on the wire (`sending`). */
async function sendingMessages(name: string, n: number): Promise<MessageFacts[]> {
  const { db } = database();
  const accountId = (await ensureAccount(db, name)).id;
  await db("webhooks").insert({ account_id: accountId, name: "w", url: "https://example.com/", secret: "whsec_x" });
  const { rows } = await db.raw(
    `INSERT INTO messages (id, account_id, job_id, recipient, sender, body, status, scheduled_at, segments, encoding)
     SELECT gen_uuid_v7(), ?, gen_random_uuid(), '+14155550100', 'ACME', 'hi', 'sending', now(), 1, 'GSM-7'
       FROM generate_series(1, ?)
     RETURNING id, account_id AS "accountId", recipient AS "to"`,
    [accountId, n],
  );
  return rows.map((r: { id: string; accountId: string; to: string }) => ({ ...r, campaignId: null, providerMessageId: null }));
}

/** Notifications on the jobs channel from now on. */
async function listen(): Promise<WakeUps> {
  const wakeUps = await listenForWakeUps(database().url);
  cleanups.push(() => wakeUps.close());
  return wakeUps;
}

/** sending → sent for `messages`, their receipt jobs inserted claimed for `workerId` up to `limit`. */
const markSent = (messages: MessageFacts[], workerId: string, leaseMs: number, limit: number) =>
  updateStatusesWithReceipts(
    database().db,
    "sent",
    messages.map((m) => ({ messageId: m.id, accountId: m.accountId, at: new Date(), body: "{}" })),
    { event: "dlr.sent", seq: 1 },
    { workerId, leaseMs, limit },
  );

describe("the status change with claimFor", () => {
  it("inserts up to the limit of its receipt jobs running for the worker, returns them, and the rest claimable", async () => {
    const { db } = database();
    const messages = await sendingMessages("handoff-limit", 3);
    const { heard, drained } = await listen();
    const { changed, claimed } = await markSent(messages, "worker-a", 30_000, 2);
    expect(changed).toHaveLength(3);
    expect(claimed).toHaveLength(2);
    const rows = await db("jobs")
      .where({ kind: "deliver_receipt", account_id: messages[0]!.accountId })
      .select("id", "state", "attempt", "locked_by", "account_id", "payload");
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const job of claimed) {
      const row = byId.get(job.id)!;
      expect(row).toMatchObject({ state: "running", attempt: 1, locked_by: "worker-a", account_id: messages[0]!.accountId });
      expect(job).toMatchObject({ kind: "deliver_receipt", attempt: 1, accountId: messages[0]!.accountId, payload: row.payload });
      expect(job.runAt).toBeInstanceOf(Date);
    }
    const lease = await db("jobs")
      .whereIn(
        "id",
        claimed.map((j) => j.id),
      )
      .max({ until: "locked_until" })
      .first();
    expect(new Date(lease!.until).getTime() - Date.now()).toBeGreaterThan(20_000);
    expect(rows.filter((r) => r.state === "available").map((r) => r.attempt)).toEqual([0]);
    await drained();
    expect(heard).toHaveLength(1); // one left claimable: announced
  });

  it("with room for every receipt, sends no NOTIFY", async () => {
    const { db } = database();
    const messages = await sendingMessages("handoff-all", 3);
    const { heard, drained } = await listen();
    const { claimed } = await markSent(messages, "worker-a", 30_000, 10);
    expect(claimed).toHaveLength(3);
    const running = db("jobs").where({ kind: "deliver_receipt", state: "running", account_id: messages[0]!.accountId });
    expect(Number((await running.count({ n: "*" }).first())!.n)).toBe(3);
    await drained();
    expect(heard).toEqual([]);
  });

  it("jobs handed to a worker that died are rescued when their lease runs out, like claimed ones", async () => {
    const { db } = database();
    const messages = await sendingMessages("handoff-dead", 2);
    await markSent(messages, "worker-gone", 50, 10);
    const jobs = () => db("jobs").where({ kind: "deliver_receipt", account_id: messages[0]!.accountId });
    await waitUntil(
      "the leases to run out",
      async () => Number((await jobs().where("locked_until", "<", db.raw("now()")).count({ n: "*" }).first())!.n) === 2 || undefined,
    );
    await rescueExpiredJobs(db);
    const states = await jobs().pluck("state");
    expect(states).toEqual(["retryable", "retryable"]);
  });
});

describe("the runner's handoff", () => {
  it("a job's status change hands its receipts to this worker's receipts lane, which runs them unclaimed", async () => {
    const { db, url } = database();
    const messages = await sendingMessages("handoff-runner", 5);
    const ran: { job: ClaimedJob; lockedBy: string; workerId: string }[] = [];
    const runner = new JobRunner({
      db,
      databaseUrl: url,
      log: createLogger("silent"),
      // A long safety poll: a receipt left for a claim after the lane found itself dry would wait for it.
      safetyPollMs: 60_000,
      lanes: [
        { lane: "default", concurrency: 2 },
        { lane: "receipts", concurrency: 2, prefetch: 8 },
      ],
      handlers: {
        send_message: async (_job: ClaimedJob, ctx: JobContext) => {
          await changeMessageStatuses(
            db,
            messages.map((message) => ({ message, change: { status: "sent" as const, at: new Date() } })),
            { handoff: ctx.handoff("receipts") },
          );
        },
        deliver_receipt: async (job: ClaimedJob, ctx: JobContext) => {
          const row = await db("jobs").where({ id: job.id }).first("locked_by");
          ran.push({ job, lockedBy: row.locked_by, workerId: ctx.workerId });
        },
      },
    });
    cleanups.push(() => runner.stop(1000));
    await runner.start();
    const { heard, drained } = await listen();
    await db("jobs").insert({ kind: "send_message", payload: { messageId: messages[0]!.id }, account_id: messages[0]!.accountId });
    await db.raw("SELECT pg_notify(?, '')", [JOBS_CHANNEL]);
    await waitUntil("the five receipts to run", async () => ran.length === 5 || undefined);
    expect(ran.every((r) => r.job.attempt === 1 && r.lockedBy === runner.workerId && r.workerId === runner.workerId)).toBe(true);
    await drained();
    expect(heard).toEqual([""]); // only the test's own wake-up for the send: the receipts were never announced
    await waitUntil(
      "their completions",
      async () => Number((await db("jobs").where({ account_id: messages[0]!.accountId }).count({ n: "*" }).first())!.n) === 0 || undefined,
    );
  });
});
