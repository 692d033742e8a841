// Every statement that makes jobs (there are six) takes the kind's attempt budget from the one kind map.
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ensureAccount } from "../../server/operator/index.js";
import { insertJobs, MAX_ATTEMPTS, type JobKind } from "../../server/db/jobs/index.js";
import { insertMessagesWithJobs, insertScheduledMessage, updateStatusesWithReceipts } from "../../server/db/messages/index.js";
import { recordSimulatorSubmissions } from "../../server/db/simulatorSubmissions.js";
import { redeliver } from "../../server/db/webhookDeliveries.js";
import { insertWebhook } from "../../server/db/webhooks.js";
import { useTestDatabase } from "../helpers/database.js";

const database = useTestDatabase();

const message = (scheduledAt: Date) => ({
  id: randomUUID(),
  jobId: randomUUID(),
  to: "+14155550100",
  from: "ACME",
  body: "hi",
  scheduledAt,
  segments: 1,
  encoding: "GSM-7" as const,
});

describe("job kinds", () => {
  it("every job, whichever statement made it, carries its kind's max attempts", async () => {
    const { db } = database();
    const account = await ensureAccount(db, `kinds-${randomUUID()}`);
    const webhook = await insertWebhook(db, account.id, { name: "w", url: "https://example.com/dlr", secret: "whsec_x" });
    const later = new Date(Date.now() + 3_600_000);
    const single = message(later);
    await insertScheduledMessage(db, account.id, single);
    await db.transaction((tx) => insertMessagesWithJobs(tx, account.id, [message(later)]));
    await db.transaction((tx) =>
      insertJobs(tx, [
        { kind: "campaign_fanout", payload: { campaignId: randomUUID() }, runAt: later, accountId: account.id },
        {
          kind: "smpp_receipt",
          payload: { segmentId: "s1", stat: "DELIVRD", err: null, at: new Date().toISOString() },
          runAt: later,
          accountId: null,
        },
      ]),
    );
    await recordSimulatorSubmissions(
      db,
      [
        {
          messageId: single.id,
          providerMessageId: "p1",
          recipient: single.to,
          outcome: "delivered",
          report: { providerMessageId: "p1", status: "delivered" },
          priority: "normal",
          accountId: account.id,
        },
      ],
      later,
    );
    // A status change writes a receipt for the webhook, with its deliver_receipt job (the outbox statement).
    const { changed } = await updateStatusesWithReceipts(
      db,
      "failed",
      [{ messageId: single.id, accountId: account.id, at: new Date(), body: "{}" }],
      {
        event: "dlr.failed",
        seq: 2,
      },
    );
    expect(changed).toHaveLength(1);
    const delivery = await db("webhook_deliveries").where({ webhook_id: webhook.id }).first("id");
    expect(await redeliver(db, account.id, webhook.id, delivery.id)).toMatchObject({ status: "pending" }); // the second deliver_receipt job

    const rows: { kind: JobKind; max_attempts: number }[] = await db("jobs").select("kind", "max_attempts");
    const kinds = new Set(rows.map((r) => r.kind));
    expect([...kinds].sort()).toEqual(Object.keys(MAX_ATTEMPTS).sort());
    for (const row of rows) expect(row.max_attempts, row.kind).toBe(MAX_ATTEMPTS[row.kind]);
    expect(rows.filter((r) => r.kind === "deliver_receipt")).toHaveLength(2);
  });

  it("the simulator's report of a message runs at the message's priority (a low campaign's reports do not cut its sends into tiny windows)", async () => {
    const { db } = database();
    const later = new Date(Date.now() + 3_600_000);
    const submissions = (["high", "normal", "low"] as const).map((priority, i) => ({
      messageId: randomUUID(),
      providerMessageId: `prio-${i}`,
      recipient: "+14155550100",
      outcome: "delivered",
      report: { providerMessageId: `prio-${i}`, status: "delivered" as const },
      priority,
      accountId: null,
    }));
    await recordSimulatorSubmissions(db, submissions, later);
    const rows: { id: string; priority: number }[] = await db("jobs")
      .where({ kind: "provider_report" })
      .whereRaw("payload->>'providerMessageId' LIKE 'prio-%'")
      .orderByRaw("payload->>'providerMessageId'")
      .select("priority");
    expect(rows.map((r) => r.priority)).toEqual([0, 1, 2]);
  });
});
