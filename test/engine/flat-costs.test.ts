// The statements behind every list filter and every maintenance sweep read an index that matches them: a page
// is an ordered index walk that stops after `limit` rows (no Sort, no Seq Scan), whatever the history holds.
// Checked on the plans PostgreSQL chooses for the statements our code sends, over 20,000 messages with
// statistics, not on timings (bench:history measures those on millions).
import { beforeAll, describe, expect, it } from "vitest";
import { ensureAccount } from "../../server/operator/index.js";
import { deleteExpiredIdempotencyKeys } from "../../server/db/idempotencyKeys.js";
import { listMessages } from "../../server/db/messages/index.js";
import { deleteOldDeliveries, retainAccountMessages } from "../../server/db/retention.js";
import { listDeliveries, releaseOrphanedParkedDeliveries } from "../../server/db/webhookDeliveries.js";
import { uuidv7 } from "../../server/domain/uuidv7.js";
import { useTestDatabase } from "../helpers/database.js";
import { holdStatistics, plansOf, summarise } from "../helpers/explain.js";

const database = useTestDatabase();
let accountId: string;
let campaignId: string;
let webhookId: string;
const N = 20_000;

beforeAll(async () => {
  const { db } = database();
  await holdStatistics(db, ["messages", "webhook_deliveries", "idempotency_keys"]);
  accountId = (await ensureAccount(db, "history")).id;
  const [campaign] = await db("campaigns")
    .insert({ account_id: accountId, name: "c", message: "hi", type: "instant", sender: "ACME", status: "sending" })
    .returning("id");
  campaignId = campaign.id;
  const [webhook] = await db("webhooks")
    .insert({ account_id: accountId, name: "w", url: "https://example.com/", secret: "whsec_x" })
    .returning("id");
  webhookId = webhook.id;
  // A history: nearly all delivered, a few scheduled and failed; half of it one campaign.
  await db.raw(
    `INSERT INTO messages (account_id, campaign_id, job_id, recipient, sender, body, status, scheduled_at, sent_at,
                           delivered_at, failed_at, segments, encoding, created_at)
     SELECT ?, CASE WHEN g % 2 = 0 THEN ?::uuid END, gen_random_uuid(), '+14155550100', 'ACME', 'hi', s.status, now(),
            CASE WHEN s.status <> 'scheduled' THEN now() END, CASE WHEN s.status = 'delivered' THEN now() END,
            CASE WHEN s.status = 'failed' THEN now() END, 1, 'GSM-7', now() - g * interval '1 second'
       FROM generate_series(1, ?) g
       CROSS JOIN LATERAL (SELECT CASE WHEN g % 1000 = 0 THEN 'scheduled' WHEN g % 997 = 0 THEN 'failed' ELSE 'delivered' END AS status) s`,
    [accountId, campaignId, N],
  );
  await db.raw(
    `INSERT INTO webhook_deliveries (id, webhook_id, account_id, message_id, event, seq, body, status, parked, finished_at, created_at,
                                     gave_up)
     SELECT gen_uuid_v7(), ?, account_id, id, 'dlr.delivered', 2, '{}',
            CASE WHEN status = 'failed' THEN 'failed' WHEN status = 'scheduled' THEN 'pending' ELSE 'succeeded' END,
            status = 'scheduled', CASE WHEN status <> 'scheduled' THEN now() END, created_at, status = 'failed'
       FROM messages`,
    [webhookId],
  );
  await db.raw(
    `INSERT INTO idempotency_keys (account_id, key, request_hash, created_at)
     SELECT ?, 'k' || g, 'h', now() - g * interval '1 second' FROM generate_series(1, ?) g`,
    [accountId, N],
  );
  await db.raw("ANALYZE messages, webhook_deliveries, idempotency_keys");
});

async function planOf(fn: () => Promise<unknown>) {
  const plans = await plansOf(database().db, fn);
  expect(plans).toHaveLength(1);
  return summarise(plans[0]!);
}

const after = { cursorAt: new Date(Date.now() - 60_000).toISOString(), id: uuidv7() };

describe("list pages walk an index in their own order", () => {
  it.each([
    ["status=scheduled", { statuses: ["scheduled", "sending"] as const }, "messages_pending_page_idx"],
    ["status=failed", { statuses: ["failed"] as const }, "messages_failed_page_idx"],
    ["status=cancelled, deep in a cursor chain", { statuses: ["cancelled"] as const, after }, "messages_cancelled_page_idx"],
    // Almost every message is sent or delivered: no index of their own (one would make the receipt's update
    // write index entries), the account's page index read newest first.
    ["status=delivered", { statuses: ["delivered"] as const }, "messages_account_page_idx"],
  ])("messages, %s", async (_name, filter, index) => {
    const plan = await planOf(() => listMessages(database().db, accountId, { ...filter, statuses: [...filter.statuses], limit: 51 }));
    expect(plan).toEqual({ indexes: [index], sorts: false, seqScans: [] });
  });

  it("messages of a campaign", async () => {
    const plan = await planOf(() => listMessages(database().db, accountId, { campaignId, limit: 51 }));
    expect(plan).toEqual({ indexes: ["messages_campaign_page_idx"], sorts: false, seqScans: [] });
  });

  // Failed deliveries have an index of their own, on a column a success never changes (migration 072). Pending
  // ones have none (leaving pending is the success, which is a HOT update because no index names it): that
  // list reads the webhook's log (docs/API.md, "Webhooks").
  it("the deliveries log, status=failed", async () => {
    const plan = await planOf(() => listDeliveries(database().db, accountId, webhookId, { status: "failed", limit: 51 }));
    expect(plan).toEqual({ indexes: ["webhook_deliveries_failed_page_idx"], sorts: false, seqScans: [] });
  });
});

describe("maintenance sweeps read only what they act on", () => {
  it("orphaned parked receipts: the parked rows, never the whole deliveries table", async () => {
    const plans = await plansOf(database().db, () => releaseOrphanedParkedDeliveries(database().db));
    const sweep = summarise(plans[0]!);
    expect(sweep.seqScans).toEqual([]);
    expect(sweep.indexes).toContain("webhook_deliveries_parked_idx");
  });

  it("expired idempotency keys: by their creation time", async () => {
    const plan = await planOf(() => deleteExpiredIdempotencyKeys(database().db));
    expect(plan).toEqual({ indexes: ["idempotency_keys_created_idx"], sorts: false, seqScans: [] });
  });
});

describe("retention walks an index from the oldest row", () => {
  it.each(["delete", "redact"] as const)("messages (%s): the account's page index, backwards", async (action) => {
    const before = new Date(Date.now() - 3600_000);
    const plan = await planOf(() => retainAccountMessages(database().db, action, { accountId, before, limit: 500 }));
    expect(plan.seqScans).toEqual([]);
    // (Its one Sort orders the batch's own rows, at most `limit`, to say where the walk stopped.)
    expect(plan.indexes).toContain("messages_account_page_idx");
  });

  it("the delivery log: the webhook's page index", async () => {
    const plan = await planOf(() => deleteOldDeliveries(database().db, webhookId, new Date(Date.now() - 3600_000), 500));
    expect(plan).toEqual({ indexes: ["webhook_deliveries_webhook_page_idx", "webhook_deliveries_pkey"], sorts: false, seqScans: [] });
  });
});

describe("new ids are time-ordered", () => {
  it("the database's default and the rows the receipt outbox writes are version 7 UUIDs", async () => {
    const { db } = database();
    const [account] = await db("accounts").insert({ name: "v7" }).returning("id");
    const { rows } = await db.raw(
      "SELECT gen_uuid_v7()::text AS a, gen_uuid_v7()::text AS b, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms",
    );
    for (const id of [account.id, rows[0].a, rows[0].b]) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab]/);
    expect(Math.abs(parseInt(rows[0].a.replace(/-/g, "").slice(0, 12), 16) - Number(rows[0].ms))).toBeLessThan(1000);
  });
});
