// A receipt's job ends in the statement that records its delivery: a final outcome (succeeded, or failed for
// good) deletes the job there, so the runner sends no completion of its own for it; a failure to retry keeps
// the job, due again after its backoff. The real handler, runner, HTTP client and receiver on 127.0.0.1.
import { afterEach, describe, expect, it } from "vitest";
import { ensureAccount } from "../../server/operator/index.js";
import { updateStatusesWithReceipts } from "../../server/db/messages/index.js";
import { insertWebhook } from "../../server/db/webhooks.js";
import { generateWebhookSecret } from "../../server/domain/webhookSecrets.js";
import { deliverReceiptHandler } from "../../server/jobs/handlers/deliverReceipt.js";
import { JobRunner } from "../../server/jobs/runner.js";
import { createLogger } from "../../server/logger.js";
import { ReceiptClient } from "../../server/webhooks/client.js";
import { useTestDatabase } from "../helpers/database.js";
import { startReceiver } from "../helpers/receiver.js";
import { waitUntil } from "../helpers/wait.js";

const database = useTestDatabase();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function run(name: string, answer: (index: number) => number) {
  const { db, url } = database();
  const receiver = await startReceiver();
  receiver.respond = (_req, index) => ({ status: answer(index) });
  cleanups.push(() => receiver.close());
  const accountId = (await ensureAccount(db, name)).id;
  await insertWebhook(db, accountId, { name: "w", url: receiver.url, secret: generateWebhookSecret() });
  const { rows } = await db.raw(
    `INSERT INTO messages (id, account_id, job_id, recipient, sender, body, status, scheduled_at, segments, encoding)
     VALUES (gen_uuid_v7(), ?, gen_random_uuid(), '+14155550100', 'ACME', 'hi', 'sending', now(), 1, 'GSM-7') RETURNING id`,
    [accountId],
  );
  const statements: string[] = [];
  const record = (q: { sql: string }) => statements.push(q.sql);
  db.on("query", record);
  const client = new ReceiptClient({ timeoutMs: 2_000, allowPrivate: true });
  const runner = new JobRunner({
    db,
    databaseUrl: url,
    log: createLogger("silent"),
    lanes: [{ lane: "receipts", concurrency: 4 }],
    handlers: {
      deliver_receipt: deliverReceiptHandler(db, client, {
        retryBaseMs: 100,
        maxInFlight: 10,
        laneConcurrency: 4,
        slowAfterFailures: 100,
        disableAfterFailures: 1000,
        disableAfterMs: 3_600_000,
        log: createLogger("silent"),
      }),
    },
  });
  cleanups.push(async () => {
    db.off("query", record);
    await runner.stop(1000);
    await client.close();
  });
  await runner.start();
  await updateStatusesWithReceipts(db, "sent", [{ messageId: rows[0].id, accountId, at: new Date(), body: '{"a":1}' }], {
    event: "dlr.sent",
    seq: 1,
  });
  const delivery = () => db("webhook_deliveries").where({ account_id: accountId }).first("status", "attempts");
  const jobs = async () => Number((await db("jobs").where({ account_id: accountId }).count({ n: "*" }).first())!.n);
  return { receiver, delivery, jobs, statements };
}

const completions = (statements: string[]) => statements.filter((s) => s.startsWith("DELETE FROM jobs WHERE id = ANY"));

describe("a receipt's job", () => {
  it("is completed by the statement that records its delivery: no completion statement of its own", async () => {
    const t = await run("completion-ok", () => 200);
    await waitUntil("the delivery to succeed", async () => (await t.delivery()).status === "succeeded" || undefined);
    await waitUntil("the job to be gone", async () => (await t.jobs()) === 0 || undefined);
    expect(t.receiver.received).toHaveLength(1);
    expect(completions(t.statements)).toEqual([]);
  });

  it("after a failed attempt stays, due again, and is completed with the delivery that succeeds", async () => {
    const t = await run("completion-retry", (i) => (i === 0 ? 500 : 200));
    await waitUntil("the delivery to succeed", async () => (await t.delivery()).status === "succeeded" || undefined);
    await waitUntil("the job to be gone", async () => (await t.jobs()) === 0 || undefined);
    expect(t.receiver.received).toHaveLength(2);
    expect((await t.delivery()).attempts.map((a: { responseStatus: number }) => a.responseStatus)).toEqual([500, 200]);
    expect(completions(t.statements)).toEqual([]);
  });
});
