// Retention: final messages past their time go with their history and receipt deliveries, in small batches;
// a message that is not final never goes; the delivery log is trimmed on its own schedule; bodies are erased
// (the row stays); an account may keep its messages for a different time; and all of it runs beside sending.
import { receiptBody } from "../../server/domain/receiptPayload.js";
import { describe, expect, it } from "vitest";
import { applyRetention, type RetentionPolicy } from "../../server/jobs/maintenance/applyRetention.js";
import { FINAL_STATUSES, type StoredStatus } from "../../server/domain/messageStatus.js";
import { messageReceivedBody } from "../../server/domain/events.js";
import { insertDueMessages } from "../helpers/messages.js";
import { startReceiver } from "../helpers/receiver.js";
import { useTestServer } from "../helpers/server.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";
import { waitUntil } from "../helpers/wait.js";

const server = useTestServer(fastWorkerConfig);
useTestWorker(server);
const db = () => server().db;

const policy: RetentionPolicy = { messageRetentionDays: 400, deliveryLogRetentionDays: 30, messageBodyRetentionDays: 0, batchSize: 3 };
const ALL: StoredStatus[] = ["scheduled", "sending", "sent", "delivered", "failed", "undelivered", "cancelled"];

/** A message created `daysAgo`, in `status`, with a finished receipt delivery to `webhookId`. */
async function storedMessage(accountId: string, webhookId: string, status: StoredStatus, daysAgo: number, body = "hello"): Promise<string> {
  const { rows } = await db().raw(
    `WITH m AS (
       INSERT INTO messages (account_id, job_id, recipient, sender, body, status, scheduled_at, cancelled_at, failed_at, segments, encoding, created_at)
       VALUES (?, gen_random_uuid(), '+14155550100', 'ACME', ?, ?, now(), CASE WHEN ? = 'cancelled' THEN now() END,
               CASE WHEN ? IN ('failed', 'undelivered') THEN now() END, 1, 'GSM-7', now() - make_interval(days => ?))
       RETURNING id, created_at
     ), d AS (
       INSERT INTO webhook_deliveries (id, webhook_id, account_id, message_id, event, seq, body, status, finished_at, created_at)
       SELECT gen_uuid_v7(), ?, ?, id, 'dlr.sent', 1, '{}', 'succeeded', created_at, created_at FROM m
     )
     SELECT id FROM m`,
    [accountId, body, status, status, status, daysAgo, webhookId, accountId],
  );
  return rows[0].id;
}

async function accountWithWebhook(): Promise<{ accountId: string; webhookId: string }> {
  const { accountId } = await server().account();
  const [webhook] = await db()("webhooks")
    .insert({ account_id: accountId, name: "w", url: "https://example.com/", secret: "whsec_x" })
    .returning("id");
  return { accountId, webhookId: webhook.id };
}

const count = async (table: string, where: Record<string, unknown>) => Number((await db()(table).where(where).count({ n: "*" }))[0]!.n);

describe("message retention", () => {
  it("deletes old messages only in a final status, with their deliveries; recent ones stay", async () => {
    const { accountId, webhookId } = await accountWithWebhook();
    const old = Object.fromEntries(
      await Promise.all(ALL.map(async (s) => [s, await storedMessage(accountId, webhookId, s, 401)] as const)),
    );
    const recent = await storedMessage(accountId, webhookId, "delivered", 399);

    // The delivery log kept for ever here: what goes, goes with its message.
    await applyRetention(db(), { ...policy, deliveryLogRetentionDays: 0 });

    for (const status of ALL) {
      const kept = !FINAL_STATUSES.includes(status);
      expect({ status, kept: (await count("messages", { id: old[status] })) === 1 }).toEqual({ status, kept });
      expect(await count("webhook_deliveries", { message_id: old[status] })).toBe(kept ? 1 : 0);
    }
    expect(await count("messages", { id: recent })).toBe(1);
    // What is not a message's stays: the account, its webhook, its contacts.
    expect(await count("accounts", { id: accountId })).toBe(1);
    expect(await count("webhooks", { id: webhookId })).toBe(1);
  });

  it("deletes old inbound messages too, and never an opt-out, however old (consent records outlive the messages)", async () => {
    const { accountId } = await accountWithWebhook();
    const { rows } = await db().raw(
      `INSERT INTO messages (account_id, direction, recipient, sender, body, status, received_at, segments, encoding, created_at)
       VALUES (?, 'inbound', '+14155550100', '+14155550199', 'STOP', 'received', now() - interval '401 days', 1, 'GSM-7',
               now() - interval '401 days')
       RETURNING id`,
      [accountId],
    );
    await db()("opt_outs").insert({
      account_id: accountId,
      phone: "+14155550199",
      source: "keyword",
      keyword: "STOP",
      created_at: db().raw("now() - interval '900 days'"),
    });

    await applyRetention(db(), policy);

    expect(await count("messages", { id: rows[0].id })).toBe(0);
    expect(await count("opt_outs", { account_id: accountId, phone: "+14155550199" })).toBe(1);
  });

  it("deletes an inbox thread whose latest message is past retention, and erases a thread's last body with the bodies", async () => {
    const { accountId } = await accountWithWebhook();
    const thread = (phone: string, daysAgo: number) =>
      db().raw(
        `INSERT INTO conversations (account_id, phone, last_message_id, last_body, last_received_at, received, unread)
         VALUES (?, ?, gen_random_uuid(), 'my address is 1 Main St', now() - make_interval(days => ?), 1, 1)`,
        [accountId, phone, daysAgo],
      );
    await thread("+14155550191", 401);
    await thread("+14155550192", 40);
    await thread("+14155550193", 1);
    await applyRetention(db(), { ...policy, messageBodyRetentionDays: 30 });
    const left = await db()("conversations").where({ account_id: accountId }).orderBy("phone").select("phone", "last_body");
    expect(left).toEqual([
      { phone: "+14155550192", last_body: "" },
      { phone: "+14155550193", last_body: "my address is 1 Main St" },
    ]);
  });

  it("works in batches of batchSize, each statement on at most that many messages, past non-final ones in between", async () => {
    const { accountId, webhookId } = await accountWithWebhook();
    for (let i = 0; i < 10; i++) await storedMessage(accountId, webhookId, i % 3 === 0 ? "sent" : "delivered", 500 - i);
    const changedPerStatement: number[] = [];
    const record = (response: { rows?: { changed?: number; walked?: number }[] }, q: { sql: string }) => {
      if (q.sql.includes("WITH batch AS") && response.rows?.[0]?.walked !== undefined) changedPerStatement.push(response.rows[0].walked);
    };
    db().on("query-response", record);
    try {
      await applyRetention(db(), policy);
    } finally {
      db().off("query-response", record);
    }
    expect(await count("messages", { account_id: accountId })).toBe(4); // the four still `sent`
    expect(Math.max(...changedPerStatement)).toBeLessThanOrEqual(3);
    expect(changedPerStatement.length).toBeGreaterThanOrEqual(4);
  });

  it("paces itself: every batch is followed by a pause of three times what the batch took", async () => {
    const { accountId, webhookId } = await accountWithWebhook();
    for (let i = 0; i < 10; i++) await storedMessage(accountId, webhookId, "delivered", 500 - i);
    const events: string[] = [];
    const ratios: number[] = [];
    let batchStart = 0;
    const onQuery = (q: { sql: string }) => {
      if (
        q.sql.includes("WITH batch AS") ||
        /^(DELETE FROM|UPDATE) (webhook_deliveries|unrouted_messages|audit_events|conversations|batches)/.test(q.sql)
      ) {
        events.push("batch");
        batchStart = performance.now();
      }
    };
    db().on("query", onQuery);
    try {
      await applyRetention(db(), {
        ...policy,
        pause: async (ms) => {
          events.push("pause");
          ratios.push(ms / (performance.now() - batchStart));
        },
      });
    } finally {
      db().off("query", onQuery);
    }
    expect(await count("messages", { account_id: accountId })).toBe(0);
    expect(events.filter((e) => e === "batch").length).toBeGreaterThanOrEqual(4); // 10 messages, 3 a batch
    expect(`${events.join(",")},`).toMatch(/^(batch,pause,)+$/);
    // Three times the batch as the job timed it (from before it took a connection, so a little more than the
    // test saw from the statement's start; never nothing).
    for (const r of ratios) expect(r).toBeGreaterThan(1);
    const unpaced: number[] = [];
    await storedMessage(accountId, webhookId, "delivered", 500);
    await applyRetention(db(), { ...policy, pauseFactor: 0, pause: async (ms) => void unpaced.push(ms) });
    expect(await count("messages", { account_id: accountId })).toBe(0);
    expect(unpaced).toEqual([]);
  });

  it("an account's message_retention_days overrides the default", async () => {
    const a = await accountWithWebhook();
    const b = await accountWithWebhook();
    await db()("accounts").where({ id: b.accountId }).update({ message_retention_days: 7 });
    const ofA = await storedMessage(a.accountId, a.webhookId, "delivered", 8);
    const ofB = await storedMessage(b.accountId, b.webhookId, "delivered", 8);
    await applyRetention(db(), policy);
    expect(await count("messages", { id: ofA })).toBe(1);
    expect(await count("messages", { id: ofB })).toBe(0);
  });

  it("deletes a batch past retention once no message names it; one whose message an account keeps longer stays", async () => {
    const a = await accountWithWebhook();
    const keeper = await accountWithWebhook();
    await db()("accounts").where({ id: keeper.accountId }).update({ message_retention_days: 1000 });
    const batch = async (accountId: string, daysAgo: number) => {
      const [row] = await db()("batches")
        .insert({
          id: db().raw("gen_random_uuid()"),
          account_id: accountId,
          accepted: 1,
          rejected: 0,
          created_at: db().raw(`now() - interval '${daysAgo} days'`),
        })
        .returning("id");
      return (row as { id: string }).id;
    };
    const gone = await batch(a.accountId, 401);
    const recent = await batch(a.accountId, 10);
    const kept = await batch(keeper.accountId, 401);
    await db()("messages")
      .where({ id: await storedMessage(keeper.accountId, keeper.webhookId, "delivered", 401) })
      .update({ batch_id: kept });
    await applyRetention(db(), policy);
    expect(await count("batches", { id: gone })).toBe(0);
    expect(await count("batches", { id: recent })).toBe(1);
    expect(await count("batches", { id: kept })).toBe(1);
  });
});

describe("delivery log retention", () => {
  it("deletes finished deliveries past DELIVERY_LOG_RETENTION_DAYS, keeps pending ones and the messages", async () => {
    const { accountId, webhookId } = await accountWithWebhook();
    const message = await storedMessage(accountId, webhookId, "delivered", 31);
    await db()("webhook_deliveries").insert({
      id: crypto.randomUUID(),
      webhook_id: webhookId,
      account_id: accountId,
      message_id: message,
      event: "dlr.delivered",
      seq: 2,
      body: "{}",
      created_at: new Date(Date.now() - 31 * 86_400_000),
    });
    const fresh = await storedMessage(accountId, webhookId, "delivered", 29);
    await applyRetention(db(), policy);
    expect(await db()("webhook_deliveries").where({ message_id: message }).pluck("status")).toEqual(["pending"]);
    expect(await count("messages", { id: message })).toBe(1);
    expect(await count("webhook_deliveries", { message_id: fresh })).toBe(1);
  });
});

describe("body redaction", () => {
  it("erases the text of messages past MESSAGE_BODY_RETENTION_DAYS once handed over; the API shows an empty body", async () => {
    const account = await server().account();
    const [webhook] = await db()("webhooks")
      .insert({ account_id: account.accountId, name: "w", url: "https://example.com/", secret: "whsec_x" })
      .returning("id");
    const delivered = await storedMessage(account.accountId, webhook.id, "delivered", 91, "secret text");
    const sent = await storedMessage(account.accountId, webhook.id, "sent", 91, "secret text");
    const waiting = await storedMessage(account.accountId, webhook.id, "scheduled", 91, "to be sent");
    const recent = await storedMessage(account.accountId, webhook.id, "delivered", 89, "recent text");

    await applyRetention(db(), { ...policy, messageBodyRetentionDays: 90 });

    const bodies = Object.fromEntries(
      (await db()("messages").where({ account_id: account.accountId }).select("id", "body")).map((r) => [r.id, r.body]),
    );
    expect(bodies).toEqual({ [delivered]: "", [sent]: "", [waiting]: "to be sent", [recent]: "recent text" });
    const res = await account.request("GET", `/api/v1/messages/${delivered}`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { body: string; status: string }).body).toBe("");
    // The next run starts where this one stopped.
    const { bodies_redacted_before: mark } = await db()("accounts").where({ id: account.accountId }).first("bodies_redacted_before");
    expect(Date.now() - mark.getTime()).toBeGreaterThan(89.9 * 86_400_000);

    // The waiting one is sent later, long after the walk passed it: the next run erases it all the same, once.
    await db()("messages").where({ id: waiting }).update({ status: "delivered" });
    await applyRetention(db(), { ...policy, messageBodyRetentionDays: 90 });
    expect(await db()("messages").where({ id: waiting }).first("body")).toEqual({ body: "" });
    expect(await count("bodies_awaiting_erasure", { account_id: account.accountId })).toBe(0);
  });
});

describe("body redaction in the webhooks' delivery log", () => {
  it("erases an inbound message's text in its stored message.received payload too; redeliver posts the erased one", async () => {
    const account = await server().account();
    const receiver = await startReceiver();
    try {
      const { data: hook } = await account.client.POST("/api/v1/webhooks", { body: { name: "inbound", url: receiver.url } });
      const receivedAt = new Date(Date.now() - 91 * 86_400_000);
      const [message] = await db()("messages")
        .insert({
          account_id: account.accountId,
          direction: "inbound",
          status: "received",
          sender: "+14155550199",
          recipient: "+14155550100",
          body: 'my "secret", \\ text',
          segments: 1,
          encoding: "GSM-7",
          received_at: receivedAt,
          created_at: receivedAt,
        })
        .returning("id");
      const payload = messageReceivedBody({
        messageId: message.id,
        from: "+14155550199",
        to: "+14155550100",
        body: 'my "secret", \\ text',
        segments: 1,
        encoding: "GSM-7",
        receivedAt,
        incomplete: false,
      });
      const [delivery] = await db()("webhook_deliveries")
        .insert({
          webhook_id: hook!.webhookId,
          account_id: account.accountId,
          message_id: message.id,
          event: "message.received",
          seq: 1,
          body: payload,
          status: "succeeded",
          finished_at: receivedAt,
          created_at: receivedAt,
        })
        .returning("id");

      await applyRetention(db(), { ...policy, deliveryLogRetentionDays: 400, messageBodyRetentionDays: 90 });

      const stored = (await db()("webhook_deliveries").where({ id: delivery.id }).first("body")).body as string;
      expect(stored).not.toContain("secret");
      expect(Object.entries(JSON.parse(stored))).toEqual(Object.entries({ ...JSON.parse(payload), body: "" }));
      const res = await account.request("POST", `/api/v1/webhooks/${hook!.webhookId}/deliveries/${delivery.id}/redeliver`);
      expect(res.status).toBeLessThan(300);
      const [posted] = await receiver.waitFor("the redelivery", (all) => all.length === 1);
      expect(posted!.body).toBe(stored);
    } finally {
      await receiver.close();
    }
  });
});

describe("reference and metadata under body redaction", () => {
  it("erases a message's reference, metadata and sentBody with its body, and nulls them in its stored receipts", async () => {
    const account = await server().account();
    const [webhook] = await db()("webhooks")
      .insert({ account_id: account.accountId, name: "w", url: "https://example.com/", secret: "whsec_x" })
      .returning("id");
    const id = await storedMessage(account.accountId, webhook.id, "delivered", 91, "It’s private");
    await db()("messages")
      .where({ id })
      .update({ reference: "order-secret", metadata: { card: 'x"y}z' }, sent_body: "It's private" });
    const receipt = receiptBody({
      status: "delivered",
      at: new Date(),
      messageId: id,
      to: "+14155550100",
      providerMessageId: "p1",
      campaignId: null,
      error: null,
      reference: "order-secret",
      metadata: { card: 'x"y}z' },
    });
    await db()("webhook_deliveries").where({ message_id: id }).update({ body: receipt });

    await applyRetention(db(), { ...policy, deliveryLogRetentionDays: 400, messageBodyRetentionDays: 90 });

    expect(await db()("messages").where({ id }).first("body", "reference", "metadata", "sent_body")).toEqual({
      body: "",
      reference: null,
      metadata: null,
      sent_body: null,
    });
    const stored = await db()("webhook_deliveries").where({ message_id: id }).pluck("body");
    expect(stored.length).toBeGreaterThan(0);
    for (const body of stored as string[]) {
      expect(body).not.toContain("secret");
      expect(Object.entries(JSON.parse(body))).toEqual(Object.entries({ ...JSON.parse(receipt), reference: null, metadata: null }));
    }
  });
});

describe("retention beside live sending", () => {
  it("while old-created messages are being sent, only those already final are deleted, and every send completes", async () => {
    const { accountId } = await server().account();
    // Record the status of every message as it is deleted (a test-only trigger).
    await db().raw(`
      CREATE TABLE IF NOT EXISTS deleted_statuses (id uuid, status text);
      CREATE OR REPLACE FUNCTION record_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO deleted_statuses VALUES (OLD.id, OLD.status); RETURN OLD; END $$;
      DROP TRIGGER IF EXISTS record_deleted ON messages;
      CREATE TRIGGER record_deleted BEFORE DELETE ON messages FOR EACH ROW EXECUTE FUNCTION record_deleted();
    `);
    const ids = await insertDueMessages(db(), accountId, 300, { dueAt: () => new Date() });
    await db()("messages")
      .whereIn("id", ids)
      .update({ created_at: db().raw("now() - interval '500 days'") });

    // Retention runs over and over while the worker sends; each message goes once it is final.
    await waitUntil(
      "every sent message deleted by retention",
      async () => {
        await applyRetention(db(), { ...policy, batchSize: 20 });
        return (await count("messages", { account_id: accountId })) === 0;
      },
      60_000,
    );
    const deleted = await db()("deleted_statuses").whereIn("id", ids).select("status");
    expect(deleted).toHaveLength(300);
    expect(deleted.filter((d) => !FINAL_STATUSES.includes(d.status))).toEqual([]);
    // No send failed for want of its message.
    expect(await db()("jobs").where({ kind: "send_message" }).whereIn("state", ["retryable", "discarded"]).count({ n: "*" })).toEqual([
      { n: 0 },
    ]);
  });
});
