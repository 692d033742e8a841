// Chaos: every connection of the service (pool and LISTEN) is killed with pg_terminate_backend every
// second for 20 s while 1,000 messages are sent with receipts. Afterwards every message is final, each was handed to
// the provider at most once, and every receipt reached the receiver (duplicates only with one X-Webhook-Id).
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { ensureAccount } from "../../server/operator/index.js";
import { insertWebhook } from "../../server/db/webhooks.js";
import { generateWebhookSecret } from "../../server/domain/webhookSecrets.js";
import { useTestDatabase } from "../helpers/database.js";
import { insertDueMessages } from "../helpers/messages.js";
import { submittedTwice, waitUntilSettled } from "../helpers/outcomes.js";
import { spawnProcess } from "../helpers/process.js";
import { startReceiver, type Receiver } from "../helpers/receiver.js";

const database = useTestDatabase();
let receiver: Receiver | undefined;
afterAll(() => receiver?.close());

describe("connections killed under load", { timeout: 180_000 }, () => {
  it("loses nothing and sends nothing twice", async () => {
    const { db, url } = database();
    receiver = await startReceiver();
    const account = await ensureAccount(db, "chaos");
    await insertWebhook(db, account.id, { name: "chaos", url: receiver.url, secret: generateWebhookSecret() });
    // Due from 8 s on (the worker process starts meanwhile) over 15 s, so sending overlaps the kills.
    const due = Date.now() + 8000;
    const ids = await insertDueMessages(db, account.id, 1000, {
      dueAt: (i) => new Date(due + i * 15),
      to: (i) => `+1415556${1000 + i}`,
      body: "chaos",
    });
    const worker = spawnProcess("node", ["--import", "tsx", "server/main.ts"], {
      ROLE: "worker",
      DATABASE_URL: url,
      LOG_LEVEL: "info",
      WEBHOOK_ALLOW_PRIVATE: "1",
      SIMULATOR_DELIVERY_DELAY_MS: "50",
      WEBHOOK_RETRY_BASE_MS: "200",
      SIMULATOR_SUBMIT_DELAY_MS: "5",
      // An unknown outcome no report resolves fails after this (the default, 10 min, outlasts the test).
      SEND_OUTCOME_RESOLVE_MS: "10000",
    });
    await worker.waitFor(/job runner started/, 60_000);
    // Kill every backend of the service in this test's database (pool and LISTEN) every second for 20 s.
    const killer = new pg.Client({ connectionString: url });
    await killer.connect();
    let kills = 0;
    for (const stop = Date.now() + 20_000; Date.now() < stop;) {
      const { rowCount } = await killer.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'sms-platform%' AND pid <> pg_backend_pid()",
      );
      kills += rowCount ?? 0;
      await new Promise((r) => setTimeout(r, 1000));
    }
    await killer.end();
    expect(kills).toBeGreaterThan(5);

    await waitUntilSettled(db, ids, 90_000);
    expect(await submittedTwice(db, ids)).toEqual([]);
    const statuses = await db("messages").whereIn("id", ids).select("id", "status", "error_code");
    for (const s of statuses) if (s.status === "failed") expect(s.error_code).toBe("send_outcome_unknown");
    // Every receipt the status changes imply reached the receiver.
    const expected = await db("webhook_deliveries").whereIn("message_id", ids).select("id");
    await receiver.waitFor("every receipt", (all) => new Set(all.map((r) => r.headers["x-webhook-id"])).size >= expected.length, 90_000);
    const received = new Set(receiver.received.map((r) => r.headers["x-webhook-id"] as string));
    expect(expected.filter((d) => !received.has(d.id))).toEqual([]);
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toBe(0);
  });
});
