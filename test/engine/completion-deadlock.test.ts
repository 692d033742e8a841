// A receipt's finish (db/webhookDeliveries.ts: its delivery row, then its job deleted) made to deadlock with
// another transaction, as it did with the lease heartbeat in SMPP runs: PostgreSQL cancels the finish. The
// finish is written again; the receipt, already answered 200, is not posted again. Before, the cancelled finish
// failed the job, which ran again: 3 of 20 runs posted duplicates.
//
// A delivery handed to the worker that made it has no job to delete (db/messages/statusChange.ts): the receipt
// here fails its first attempt, so that its retry runs as a job.
//
// The interleaving, held in step with a second connection T:
//   worker: POST answered → finish: UPDATE webhook_deliveries (row locked) → DELETE its job: waits for T
//   T: holds the job's row (FOR UPDATE) from before the finish; then asks for the delivery's row: a cycle.
// T waits with deadlock_timeout = 10 s and closes the cycle well within the worker's 1 s, so the worker's backend
// finds the cycle and is the one cancelled.
import { Writable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../../server/logger.js";
import { startReceiver, type Receiver } from "../helpers/receiver.js";
import { useTestServer } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const lines: string[] = [];
const log = createLogger(
  "warn",
  new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  }),
);
const server = useTestServer({ ...fastWorkerConfig, webhookRetryBaseMs: 100, webhookTimeoutMs: 5000 });
useTestWorker(server, { log });
let receiver: Receiver;
afterAll(() => receiver?.close());

describe("a receipt's finish cancelled by a deadlock", () => {
  it("is written again; the answered receipt is not posted again", { timeout: 60_000 }, async () => {
    const { db } = server();
    const a = await server().account();
    receiver = await startReceiver();
    // The first POST fails (its retry is a job); the retry is answered late: time for T to take the job's row
    // before the finish runs.
    receiver.respond = (_r, i) => (i === 0 ? { status: 500 } : { status: 200, delayMs: i === 1 ? 1500 : 0 });
    await a.client.POST("/api/v1/webhooks", { body: { name: "r", url: receiver.url } });
    const { data } = await a.client.POST("/api/v1/scheduler/schedule", {
      body: { to: "+14155550123", body: "hello", from: "ACME", scheduledAt: new Date(Date.now() + 1000).toISOString() },
    });
    const messageId = data!.messageId;
    // The message's second receipt waits behind the first (docs/WEBHOOKS.md, "Ordering"): the second POST is the retry.
    const [first, retry] = await receiver.waitFor("the first receipt's retry", (all) => all.length >= 2);
    const deliveryId = first!.headers["webhook-id"] as string;
    expect(retry!.headers["webhook-id"]).toBe(deliveryId);
    const job = await db("jobs").whereRaw("payload->>'deliveryId' = ?", [deliveryId]).first<{ id: string }>("id");
    expect(job).toBeDefined();

    await db.transaction(async (t) => {
      await t.raw("SET LOCAL deadlock_timeout = '10s'");
      await t.raw("SELECT 1 FROM jobs WHERE id = ? FOR UPDATE", [job.id]);
      await waitUntil("the finish waiting for the job's row", async () => {
        // From the pool: inside T, pg_stat_activity would read the same snapshot every time.
        const { rows } = await db.raw(
          `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'WITH c AS (DELETE FROM jobs%'`,
        );
        return rows.length > 0;
      });
      // The cycle: PostgreSQL cancels the finish; this statement then gets the row the finish gave up.
      await t.raw("SELECT 1 FROM webhook_deliveries WHERE id = ? FOR UPDATE", [deliveryId]);
    });

    await waitUntil("both receipts delivered and their jobs gone", async () => {
      const rows = await db("webhook_deliveries").where({ message_id: messageId }).select("status");
      const jobs = await db("jobs").where({ kind: "deliver_receipt" }).count({ n: "*" });
      return rows.length === 2 && rows.every((r) => r.status === "succeeded") && Number(jobs[0]!.n) === 0;
    });
    const ids = receiver.received.map((r) => r.headers["webhook-id"]);
    expect(ids.filter((id) => id === deliveryId)).toHaveLength(2); // the failed attempt and its retry, not a third
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(2);
    expect(lines.join("")).toMatch(/deadlock detected/);
    expect(lines.join("")).toMatch(/recording receipt deliveries failed for a transient reason; writing it again/);
  });
});
