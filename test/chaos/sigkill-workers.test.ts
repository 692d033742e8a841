// Chaos: 5,000 due messages with a webhook, two worker processes, and a worker SIGKILLed five times while
// they send (each replaced by a fresh process at once). Afterwards every message is final, each was handed to
// the provider at most once (the simulator records every submission), and every receipt the status changes
// imply reached the receiver (duplicates only with the same X-Webhook-Id). The time from the last kill until
// everything settled is printed: it is the recovery figure in docs/RELIABILITY.md.
import { afterAll, describe, expect, it } from "vitest";
import { ensureAccount } from "../../server/operator/index.js";
import { insertWebhook } from "../../server/db/webhooks.js";
import { generateWebhookSecret } from "../../server/domain/webhookSecrets.js";
import { useTestDatabase } from "../helpers/database.js";
import { insertDueMessages } from "../helpers/messages.js";
import { submittedTwice, waitUntilSettled } from "../helpers/outcomes.js";
import { spawnProcess, type Spawned } from "../helpers/process.js";
import { startReceiver, type Receiver } from "../helpers/receiver.js";
import { waitUntil } from "../helpers/wait.js";

const database = useTestDatabase();
let receiver: Receiver | undefined;
const workers: Spawned[] = [];
afterAll(async () => {
  for (const w of workers) if (w.child.exitCode === null) w.child.kill("SIGKILL");
  await receiver?.close();
});

const N = 5000;

describe("workers SIGKILLed under load", { timeout: 240_000 }, () => {
  it("five kills: every message final, none sent twice, every receipt delivered", async () => {
    const { db, url } = database();
    receiver = await startReceiver();
    const account = await ensureAccount(db, "sigkill");
    await insertWebhook(db, account.id, { name: "sigkill", url: receiver.url, secret: generateWebhookSecret() });

    const startWorker = () => {
      const w = spawnProcess("node", ["--import", "tsx", "server/main.ts"], {
        ROLE: "worker",
        DATABASE_URL: url,
        LOG_LEVEL: "info",
        WEBHOOK_ALLOW_PRIVATE: "1",
        // Short leases so a killed worker's jobs come back within seconds, not the default 15 s.
        JOB_LEASE_MS: "3000",
        SIMULATOR_DELIVERY_DELAY_MS: "50",
        SIMULATOR_SUBMIT_DELAY_MS: "20",
        WEBHOOK_RETRY_BASE_MS: "200",
        // An outcome nothing resolves (killed between the claim and the simulator's record) fails after this.
        SEND_OUTCOME_RESOLVE_MS: "60000",
      });
      workers.push(w);
      return w;
    };
    await Promise.all([startWorker(), startWorker()].map((w) => w.waitFor(/job runner started/, 60_000)));

    // Due over ~10 s from 2 s on, so the kills land while messages are being sent and receipts delivered.
    const start = Date.now() + 2000;
    const ids = await insertDueMessages(db, account.id, N, { dueAt: (i) => new Date(start + i * 2), body: "sigkill" });

    const sentCount = async () =>
      Number((await db("messages").whereIn("id", ids).whereNot({ status: "scheduled" }).count({ n: "*" }))[0]!.n);
    let lastKill = 0;
    for (let kill = 1; kill <= 5; kill++) {
      // Each kill waits for progress, so it hits a worker in the middle of work.
      await waitUntil(`progress before kill ${kill}`, async () => (await sentCount()) >= (kill * N) / 7, 60_000, 50);
      const live = workers.filter((w) => w.child.exitCode === null && w.output().includes("job runner started"));
      const victim = live[kill % live.length]!;
      victim.child.kill("SIGKILL");
      lastKill = Date.now();
      await victim.exited;
      startWorker();
    }

    await waitUntilSettled(db, ids, 120_000);
    const settledAfterMs = Date.now() - lastKill;
    expect(await submittedTwice(db, ids)).toEqual([]);
    const statuses = await db("messages").whereIn("id", ids).select("id", "status", "error_code", "outcome_unknown_at");
    expect(statuses).toHaveLength(N);
    for (const s of statuses) {
      expect(["delivered", "undelivered", "failed"]).toContain(s.status);
      if (s.status === "failed") expect(s.error_code).toBe("send_outcome_unknown");
    }
    // Unknown means on the wire: at most a window (the simulator's is 100) per kill, and every one the simulator
    // had was resolved by its report; only one it never got (killed between claim and record) may fail.
    const declared = statuses.filter((s) => s.outcome_unknown_at !== null);
    expect(declared.length).toBeLessThanOrEqual(5 * 100);
    const simulatorHad = new Set(await db("simulator_submissions").whereIn("message_id", ids).pluck("message_id"));
    expect(statuses.filter((s) => s.status === "failed" && simulatorHad.has(s.id))).toEqual([]);
    // A receipt per status change: `sent` and the final one, or only `failed` for a send whose outcome is
    // unknown (the worker died inside the provider call).
    const unknown = statuses.filter((s) => s.status === "failed").length;
    const expected = await db("webhook_deliveries").whereIn("message_id", ids).select("id");
    expect(expected.length).toBe(2 * (N - unknown) + unknown);
    await receiver.waitFor("every receipt", (all) => new Set(all.map((r) => r.headers["x-webhook-id"])).size >= expected.length, 120_000);
    const received = new Set(receiver.received.map((r) => r.headers["x-webhook-id"] as string));
    expect(expected.filter((d) => !received.has(d.id))).toEqual([]);
    const receiptsAfterMs = Date.now() - lastKill;
    process.stderr.write(
      `sigkill: settled ${settledAfterMs} ms and every receipt in ${receiptsAfterMs} ms after the last kill; ${unknown} send_outcome_unknown\n`,
    );

    for (const w of workers) if (w.child.exitCode === null) w.child.kill("SIGTERM");
    await Promise.all(workers.map((w) => w.exited));
  });
});
