// The handoff: a status change made by a worker's job hands the receipt deliveries it makes to that worker's
// receipts lane, as many as the lane's local queue has room for, without a job row: one lease holds them all
// (a receipt_handoffs row, which each delivery's handoff_id names) and each runs as a rowless job, with no
// claim and no NOTIFY. The rest get a job each, claimable, with the NOTIFY. The runner's heartbeat extends the handed
// leases; a stopping worker hands what it holds over as jobs, and those of a worker that died get jobs when
// their leases run out.
import type { Knex } from "knex";
import { afterEach, describe, expect, it } from "vitest";
import { ensureAccount } from "../../server/operator/index.js";
import { JOBS_CHANNEL, type ClaimedJob } from "../../server/db/jobs/index.js";
import { updateStatusesWithReceipts } from "../../server/db/messages/index.js";
import { extendHandedDeliveries, handOverDeliveries } from "../../server/db/receiptHandoffs.js";
import { finishDeliveries, type AttemptOutcome } from "../../server/db/webhookDeliveries.js";
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

/** sending → sent for `messages`, their receipt deliveries handed to `workerId` up to `limit`. */
const markSent = (messages: MessageFacts[], workerId: string, leaseMs: number, limit: number) =>
  updateStatusesWithReceipts(
    database().db,
    "sent",
    messages.map((m) => ({ messageId: m.id, accountId: m.accountId, at: new Date(), body: "{}" })),
    { event: "dlr.sent", seq: 1 },
    { workerId, leaseMs, limit },
  );

/** The account's receipt deliveries and their leases (their handoff's). */
const deliveriesOf = (accountId: string) =>
  database()
    .db("webhook_deliveries as d")
    .leftJoin("receipt_handoffs as h", "h.id", "d.handoff_id")
    .where({ "d.account_id": accountId })
    .select(
      "d.id",
      "d.handoff_id",
      "h.handed_to",
      db().raw("EXTRACT(EPOCH FROM h.handed_until - now())::float8 AS left_s"),
      db().raw("EXTRACT(EPOCH FROM h.handed_until)::float8 AS until_s"),
    );
const db = () => database().db;
/** The account's receipt jobs. */
const jobsOf = (accountId: string) =>
  db()("jobs").where({ kind: "deliver_receipt", account_id: accountId }).select("id", "state", "payload");

describe("the status change with claimFor", () => {
  it("hands up to the limit of its deliveries to the worker with their own lease and no job; the rest get a job each", async () => {
    const messages = await sendingMessages("handoff-limit", 3);
    const accountId = messages[0]!.accountId;
    const { heard, drained } = await listen();
    const { changed, claimed } = await markSent(messages, "worker-a", 30_000, 2);
    expect(changed).toHaveLength(3);
    expect(claimed).toHaveLength(2);
    const deliveries = new Map((await deliveriesOf(accountId)).map((d) => [d.id, d]));
    for (const job of claimed) {
      expect(job).toMatchObject({ kind: "deliver_receipt", attempt: 1, accountId, payload: { deliveryId: job.id }, rowless: true });
      expect(deliveries.get(job.id)).toMatchObject({ handed_to: "worker-a" });
      expect(deliveries.get(job.id)!.left_s).toBeGreaterThan(20);
    }
    const jobs = await jobsOf(accountId);
    expect(jobs).toHaveLength(1); // only the one not handed
    expect(jobs[0]).toMatchObject({ state: "available" });
    expect(claimed.map((j) => j.id)).not.toContain(jobs[0]!.payload.deliveryId);
    expect(deliveries.get(jobs[0]!.payload.deliveryId)).toMatchObject({ handed_to: null });
    // One lease for the two, whatever their number: one handoff row, naming both.
    const handoffs = await db()("receipt_handoffs").whereIn("id", [...deliveries.values()].map((d) => d.handoff_id).filter(Boolean));
    expect(handoffs).toHaveLength(1);
    expect([...handoffs[0].delivery_ids].sort()).toEqual(claimed.map((j) => j.id).sort());
    await drained();
    expect(heard).toHaveLength(1); // one left claimable: announced
  });

  it("with room for every receipt, writes no job and sends no NOTIFY", async () => {
    const messages = await sendingMessages("handoff-all", 3);
    const { heard, drained } = await listen();
    const { claimed } = await markSent(messages, "worker-a", 30_000, 10);
    expect(claimed).toHaveLength(3);
    expect(await jobsOf(messages[0]!.accountId)).toEqual([]);
    await drained();
    expect(heard).toEqual([]);
  });

  it("deliveries of a worker that died get a job each when their lease runs out; a stopping worker's at once", async () => {
    const dead = await sendingMessages("handoff-dead", 2);
    await markSent(dead, "worker-gone", 50, 10);
    const stopping = await sendingMessages("handoff-stopping", 2);
    await markSent(stopping, "worker-stopping", 30_000, 10);
    // Only the holder extends a lease.
    expect(
      await extendHandedDeliveries(
        db(),
        "someone-else",
        [...dead, ...stopping].map((m) => m.id),
        30_000,
      ),
    ).toEqual([]);
    await waitUntil(
      "the short leases to run out",
      async () => (await deliveriesOf(dead[0]!.accountId)).every((d) => d.left_s < 0) || undefined,
    );
    expect(await handOverDeliveries(db(), "expired")).toBe(2);
    expect((await jobsOf(dead[0]!.accountId)).map((j) => j.state)).toEqual(["available", "available"]);
    expect((await deliveriesOf(dead[0]!.accountId)).map((d) => d.handed_to)).toEqual([null, null]);
    // The other worker's leases have not run out: untouched until it hands them over itself.
    expect(await jobsOf(stopping[0]!.accountId)).toEqual([]);
    expect(await handOverDeliveries(db(), { by: "worker-stopping" })).toBe(2);
    expect(await jobsOf(stopping[0]!.accountId)).toHaveLength(2);
    expect(await handOverDeliveries(db(), "expired")).toBe(0);
  });
});

describe("a handed delivery's outcome", () => {
  /** The updates of webhook_deliveries this backend made and has not yet reported, and how many were HOT. */
  const updatesIn = async (trx: Knex.Transaction) =>
    (
      await trx.raw(
        "SELECT n_tup_upd::int AS updates, n_tup_hot_upd::int AS hot FROM pg_stat_xact_user_tables WHERE relname = 'webhook_deliveries'",
      )
    ).rows[0];

  it("is a HOT update when final (no index names what it changes); the handoff goes once every delivery of it has one", async () => {
    const messages = await sendingMessages("handoff-outcome", 3);
    const accountId = messages[0]!.accountId;
    const { claimed } = await markSent(messages, "worker-outcome", 30_000, 10);
    expect(claimed).toHaveLength(3);
    const rows = await db()("webhook_deliveries").where({ account_id: accountId }).select("id", "webhook_id", "message_id", "handoff_id");
    const handoffId = rows[0]!.handoff_id;
    const outcome = (i: number, status: AttemptOutcome["status"], more: Partial<AttemptOutcome> = {}): AttemptOutcome => ({
      id: rows[i]!.id,
      accountId,
      messageId: rows[i]!.message_id,
      webhookId: rows[i]!.webhook_id,
      seq: 1,
      status,
      attempt: { at: new Date().toISOString(), responseStatus: status === "succeeded" ? 200 : 503, error: null, durationMs: 3 },
      ...more,
    });
    await db().transaction(async (trx) => {
      // This backend's counts not yet sent to the statistics are read with the transaction's (PostgreSQL 15+): a difference.
      const before = await updatesIn(trx);
      await finishDeliveries(trx, [outcome(0, "succeeded"), outcome(1, "succeeded")]);
      const after = await updatesIn(trx);
      expect({ updates: after.updates - before.updates, hot: after.hot - before.hot }).toEqual({ updates: 2, hot: 2 });
    });
    expect(await db()("receipt_handoffs").where({ id: handoffId })).toHaveLength(1); // the third still answers to it
    // A retry goes on as a job: it leaves the handoff, which no longer answers for anything and goes.
    await finishDeliveries(db(), [outcome(2, "pending", { requeueAt: new Date(Date.now() + 60_000) })]);
    expect(await db()("receipt_handoffs").where({ id: handoffId })).toEqual([]);
    expect(await db()("webhook_deliveries").where({ id: rows[2]!.id }).first("handoff_id", "status")).toEqual({
      handoff_id: null,
      status: "pending",
    });
    expect(await jobsOf(accountId)).toHaveLength(1);
    // Nothing left for the rescuer: the finished ones are not given jobs when the (deleted) lease would have run out.
    expect(await handOverDeliveries(db(), { by: "worker-outcome" })).toBe(0);
  });
});

describe("the runner's handoff", () => {
  it("a job's status change hands its receipts to this worker's receipts lane, which runs them with their leases kept", async () => {
    const { url } = database();
    const messages = await sendingMessages("handoff-runner", 5);
    const accountId = messages[0]!.accountId;
    const ran: { job: ClaimedJob; handedTo: string; workerId: string }[] = [];
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const runner = new JobRunner({
      db: db(),
      databaseUrl: url,
      log: createLogger("silent"),
      // A long safety poll: a receipt left for a claim after the lane found itself dry would wait for it.
      safetyPollMs: 60_000,
      // A short lease, so the heartbeat (every third of it) must extend the handed ones while they run.
      leaseMs: 300,
      lanes: [
        { lane: "default", concurrency: 2 },
        { lane: "receipts", concurrency: 5, prefetch: 8 },
      ],
      rowless: {
        extend: (worker, ids, leaseMs) => extendHandedDeliveries(db(), worker, ids, leaseMs),
        release: (worker) => handOverDeliveries(db(), { by: worker }),
      },
      handlers: {
        send_message: async (_job: ClaimedJob, ctx: JobContext) => {
          await changeMessageStatuses(
            db(),
            messages.map((message) => ({ message, change: { status: "sent" as const, at: new Date() } })),
            { handoff: ctx.handoff("receipts") },
          );
        },
        // Writes no outcome: the deliveries stay pending, held by this worker until it stops.
        deliver_receipt: async (job: ClaimedJob, ctx: JobContext) => {
          const row = await db()("webhook_deliveries as d")
            .join("receipt_handoffs as h", "h.id", "d.handoff_id")
            .where({ "d.id": job.id })
            .first("h.handed_to");
          ran.push({ job, handedTo: row.handed_to, workerId: ctx.workerId });
          await finished;
        },
      },
    });
    let stopped = false;
    cleanups.push(async () => void (stopped || (await runner.stop(1000))));
    await runner.start();
    const { heard, drained } = await listen();
    await db()("jobs").insert({ kind: "send_message", payload: { messageId: messages[0]!.id }, account_id: accountId });
    await db().raw("SELECT pg_notify(?, '')", [JOBS_CHANNEL]);
    await waitUntil("the five receipts to run", async () => ran.length === 5 || undefined);
    expect(ran.every((r) => r.job.rowless && r.handedTo === runner.workerId && r.workerId === runner.workerId)).toBe(true);
    expect(await jobsOf(accountId)).toEqual([]);
    // The heartbeat extends the handed leases: each moves on by more than two leases, and they stay this worker's.
    const first = new Map((await deliveriesOf(accountId)).map((d) => [d.id, d.until_s]));
    await waitUntil(
      "the leases extended past two more leases",
      async () =>
        (await deliveriesOf(accountId)).every((d) => d.handed_to === runner.workerId && d.until_s > first.get(d.id)! + 0.6) || undefined,
    );
    await drained();
    expect(heard).toEqual([""]); // only the test's own wake-up for the send: the receipts were never announced
    // Stopping, it hands the five it still holds over as jobs for any worker.
    const stopping = runner.stop(200);
    finish();
    await stopping;
    stopped = true;
    expect(await jobsOf(accountId)).toHaveLength(5);
    expect((await deliveriesOf(accountId)).every((d) => d.handed_to === null)).toBe(true);
  });
});
