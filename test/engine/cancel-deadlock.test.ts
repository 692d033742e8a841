// A cancel (of a batch, of one message) made the victim of a deadlock, as a campaign's cancel of 10,000 waiting
// messages was in CI with the pacer releasing some of their jobs: PostgreSQL ended the cancel, and the caller
// got a 500 while every message stayed queued. The cancel runs again (db/retriedTransaction.ts) and answers. So
// does a settings change that makes the jobs of messages held by quiet hours due.
//
// The interleaving, held in step with a second connection T:
//   cancel: locks its messages (UPDATE messages) → its jobs: waits for T
//   T: holds one of those jobs (FOR UPDATE) from before the cancel; then asks for a message's row: a cycle.
// T waits with deadlock_timeout = 10 s and closes the cycle well within the cancel's 1 s, so the cancel's backend
// finds the cycle and is the one ended. T then commits; the cancel, run again, takes everything.
import { describe, expect, it } from "vitest";
import type { Db } from "../../server/db/knex.js";
import { inHours, useTestServer, type TestAccount } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";

const server = useTestServer();

/**
 * Holds `jobId` in T until the request waits for it, then closes the cycle on a row the request holds (by default
 * the message `messageId`); returns the request's answer once T ends.
 */
async function deadlockWith(
  db: Db,
  jobId: string,
  messageId: string,
  cancel: () => Promise<Response>,
  closeCycle = (t: Db) => t.raw("SELECT 1 FROM messages WHERE id = ? FOR UPDATE", [messageId]),
): Promise<Response> {
  let answer: Promise<Response> | undefined;
  await db.transaction(async (t) => {
    await t.raw("SET LOCAL deadlock_timeout = '10s'");
    await t.raw("SELECT 1 FROM jobs WHERE id = ? FOR UPDATE", [jobId]);
    const { rows: me } = await t.raw("SELECT pg_backend_pid() AS pid");
    answer = cancel();
    // From the pool: inside T, pg_stat_activity would read the same snapshot every time.
    await waitUntil("the cancel waiting for the job's row", async () => {
      const { rows } = await db.raw("SELECT 1 FROM pg_stat_activity WHERE ?::int = ANY(pg_blocking_pids(pid))", [me[0].pid]);
      return rows.length > 0;
    });
    // Waits until PostgreSQL ends the cancel's transaction (its locks go), then holds the message until commit.
    await closeCycle(t);
  });
  return answer!;
}

const jobOf = async (db: Db, messageId: string) =>
  (await db("messages").where({ id: messageId }).first<{ job_id: string }>("job_id")).job_id;

/** One message two hours ahead: scheduled, its job waiting. */
async function scheduleLater(a: TestAccount, to: string): Promise<string> {
  const { data } = await a.client.POST("/api/v1/scheduler/schedule", {
    body: { to, body: "later", from: "ACME", scheduledAt: inHours(2) },
  });
  return data!.messageId;
}

async function batchOfThree(a: TestAccount) {
  const res = await a.request("POST", "/api/v1/messages/batch", {
    messages: ["+14155550601", "+14155550602", "+14155550603"].map((to) => ({ to, from: "ACME", body: "later", scheduledAt: inHours(2) })),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { batchId: string; results: { messageId: string }[] };
  return { batchId: body.batchId, messageIds: body.results.map((m) => m.messageId) };
}

describe("a cancel ended by a deadlock", () => {
  it("of a batch: is run again and cancels every message with its job", { timeout: 60_000 }, async () => {
    const { db } = server();
    const a = await server().account();
    const { batchId, messageIds } = await batchOfThree(a);
    const res = await deadlockWith(db, await jobOf(db, messageIds[1]!), messageIds[0]!, () =>
      a.request("POST", `/api/v1/batches/${batchId}/cancel`),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ cancelled: 3 });
    expect(await db("messages").whereIn("id", messageIds).pluck("status")).toEqual(["cancelled", "cancelled", "cancelled"]);
    expect(
      await db("jobs")
        .whereIn("id", await db("messages").whereIn("id", messageIds).pluck("job_id"))
        .pluck("state"),
    ).toEqual(["cancelled", "cancelled", "cancelled"]);
  });

  it("of one message: is run again and answers with the cancel", { timeout: 60_000 }, async () => {
    const { db } = server();
    const a = await server().account();
    const messageId = await scheduleLater(a, "+14155550611");
    const res = await deadlockWith(db, await jobOf(db, messageId), messageId, () =>
      a.request("DELETE", `/api/v1/scheduler/cancel/${messageId}`),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ messageId, status: "cancelled" });
    expect(
      await db("jobs")
        .where({ id: await jobOf(db, messageId) })
        .pluck("state"),
    ).toEqual(["cancelled"]);
  });

  it("of a settings change that releases messages held by quiet hours: is run again and answers", { timeout: 60_000 }, async () => {
    const { db } = server();
    const a = await server().account();
    const messageId = await scheduleLater(a, "+14155550621");
    // The account's settings row exists (the change below then locks it, where T closes the cycle).
    const set = await a.request("PATCH", "/api/v1/account/settings", { quietHours: { start: "21:00", end: "08:00" } });
    expect(set.status).toBe(200);
    // Held by quiet hours, as a worker leaves such a message: scheduled, deferred, its job due later.
    await db("messages")
      .where({ id: messageId })
      .update({ deferred_until: new Date(Date.now() + 3 * 3600_000) });
    const res = await deadlockWith(
      db,
      await jobOf(db, messageId),
      messageId,
      () => a.request("PATCH", "/api/v1/account/settings", { quietHours: null }),
      (t) => t.raw("SELECT 1 FROM account_settings WHERE account_id = ? FOR UPDATE", [a.accountId]),
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ quietHours: null });
    // Released: its job is due now.
    const job = await db("jobs")
      .where({ id: await jobOf(db, messageId) })
      .first<{ due: boolean }>(db.raw("run_at <= now() AS due"));
    expect(job.due).toBe(true);
  });
});
