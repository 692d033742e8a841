// A long-lived database's statistics say almost nothing is in flight: its messages are nearly all final and its
// receipts delivered. A burst (a campaign, a due batch) then puts thousands of rows in flight before the next
// ANALYZE. The statements that pick rows by id and test their status must still look each id up by the key,
// not walk a partial list index whose predicate the status test proves (messages_pending_page_idx, and
// webhook_deliveries_status_page_idx before migration 072 dropped it): that walk reads the whole burst for every window of 100 (bench:history
// measured the claim of 20,000 due messages at a third of its empty-database rate before this was fixed).
// Checked on the plans PostgreSQL chooses for the statements our code sends.
import { beforeAll, describe, expect, it } from "vitest";
import { ensureAccount } from "../../server/operator/index.js";
import { claimMessagesForSending, returnToScheduled, updateStatusesWithReceipts, type MessageKey } from "../../server/db/messages/index.js";
import { scheduledToOptedOut } from "../../server/db/optOuts.js";
import { parkBehindEarlier, releaseNextParked } from "../../server/db/webhookDeliveries.js";
import { useTestDatabase } from "../helpers/database.js";
import { holdStatistics, plansOf, summarise } from "../helpers/explain.js";

const database = useTestDatabase();
const HISTORY = 20_000;
const BURST = 5_000;
let scheduledIds: MessageKey[];
let sendingIds: MessageKey[];
let laterReceipts: { id: string; accountId: string; messageId: string; webhookId: string; seq: number }[];

beforeAll(async () => {
  const { db } = database();
  await holdStatistics(db, ["messages", "webhook_deliveries"]);
  const accountId = (await ensureAccount(db, "burst")).id;
  const [webhook] = await db("webhooks")
    .insert({ account_id: accountId, name: "w", url: "https://example.com/", secret: "whsec_x" })
    .returning("id");
  const insertMessages = (n: number, status: string) =>
    db.raw(
      `INSERT INTO messages (account_id, job_id, recipient, sender, body, status, scheduled_at, sent_at, delivered_at, segments, encoding)
       SELECT ?, gen_random_uuid(), '+14155550100', 'ACME', 'hi', ?, now(),
              CASE WHEN ? <> 'scheduled' THEN now() END, CASE WHEN ? = 'delivered' THEN now() END, 1, 'GSM-7'
         FROM generate_series(1, ?)`,
      [accountId, status, status, status, n],
    );
  const insertReceipts = (status: "pending" | "succeeded", where: string) =>
    db.raw(
      `INSERT INTO webhook_deliveries (id, webhook_id, account_id, message_id, event, seq, body, status, finished_at)
       SELECT gen_uuid_v7(), ?, account_id, id, e, seq, '{}', ?, CASE WHEN ? = 'succeeded' THEN now() END
         FROM messages, (VALUES ('dlr.sent', 1), ('dlr.delivered', 2)) r(e, seq) WHERE ${where}`,
      [webhook.id, status, status],
    );
  // The history, analysed: every message delivered, every receipt posted.
  await insertMessages(HISTORY, "delivered");
  await insertReceipts("succeeded", "status = 'delivered'");
  await db.raw("ANALYZE messages, webhook_deliveries");
  // The burst, after the last ANALYZE: due messages, messages on the wire, and their receipts still pending.
  await insertMessages(BURST, "scheduled");
  await insertMessages(BURST, "sent");
  await insertReceipts("pending", "status = 'sent'");
  scheduledIds = await db("messages").where({ status: "scheduled" }).limit(100).select("id", "account_id as accountId");
  sendingIds = await db("messages").where({ status: "sent" }).limit(100).select("id", "account_id as accountId");
  laterReceipts = await db("webhook_deliveries")
    .where({ status: "pending", seq: 2 })
    .limit(100)
    .select("id", "account_id as accountId", "message_id as messageId", "webhook_id as webhookId", "seq");
});

/** The indexes of the one statement `fn` sends that matches `pick`. */
async function indexesOf(fn: () => Promise<unknown>, pick: (sql: string) => boolean = () => true): Promise<string[]> {
  const plans = await plansOf(database().db, fn, pick);
  expect(plans).toHaveLength(1);
  const plan = summarise(plans[0]!);
  // (Tables of one row or none here are read whole: the opt-out list, the accounts and their numbers, the
  // campaigns (a paused one's messages are not claimed) have nothing to look up; the rows a burst adds are the
  // messages' and the receipts'.)
  expect(plan.seqScans.filter((t) => !["opt_outs", "accounts", "numbers", "campaigns"].includes(t))).toEqual([]);
  return plan.indexes;
}

const listIndexes = [
  "messages_pending_page_idx",
  "messages_failed_page_idx",
  "webhook_deliveries_failed_page_idx",
  "webhook_deliveries_batch_waiting_idx",
];

describe("in a burst the statistics have not seen, id-keyed statements look ids up by the key", () => {
  it("the send claim (scheduled → sending)", async () => {
    const { db } = database();
    const indexes = await indexesOf(
      () => claimMessagesForSending(db, scheduledIds, { link: "simulator", connectorId: null }),
      (sql) => sql.startsWith("UPDATE messages"),
    );
    expect(indexes).toContain("messages_pkey");
    expect(indexes.filter((i) => listIndexes.includes(i))).toEqual([]);
  });

  it("the opt-out check of unclaimed messages", async () => {
    const indexes = await indexesOf(() => scheduledToOptedOut(database().db, scheduledIds));
    expect(indexes).toContain("messages_pkey");
    expect(indexes.filter((i) => listIndexes.includes(i))).toEqual([]);
  });

  it("sending → scheduled when the provider certainly did not take them", async () => {
    const indexes = await indexesOf(() => returnToScheduled(database().db, sendingIds));
    expect(indexes.filter((i) => listIndexes.includes(i))).toEqual([]);
  });

  it("the status change with its receipts (sent → delivered)", async () => {
    const { db } = database();
    const at = new Date();
    const indexes = await indexesOf(() =>
      updateStatusesWithReceipts(
        db,
        "delivered",
        sendingIds.map((m) => ({ messageId: m.id, accountId: m.accountId, at, body: "{}" })),
        { event: "dlr.delivered", seq: 2 },
      ),
    );
    expect(indexes).toContain("messages_pkey");
    expect(indexes.filter((i) => listIndexes.includes(i))).toEqual([]);
  });

  it("parking a receipt behind an earlier one of its message, and releasing the next", async () => {
    const { db } = database();
    const park = await indexesOf(() => parkBehindEarlier(db, laterReceipts));
    expect(park).toContain("webhook_deliveries_order_idx");
    expect(park.filter((i) => listIndexes.includes(i))).toEqual([]);
    const release = await indexesOf(() => releaseNextParked(db, laterReceipts));
    expect(release.filter((i) => listIndexes.includes(i))).toEqual([]);
  });
});
