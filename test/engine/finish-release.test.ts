// Finishing a delivery releases the next one parked behind it, in a statement of its own (a snapshot taken
// after the finish committed). Nothing ever parks behind a delivery of the last seq (a final status's
// receipt), so finishing one of those sends no release at all: half of all receipts, one round trip each.
// Parking is tried only for a delivery loaded while an earlier one of its message was still pending.
import { beforeAll, describe, expect, it } from "vitest";
import { ensureAccount } from "../../server/operator/index.js";
import { finishDeliveries, loadDeliveriesForDispatch, parkBehindEarlier, type AttemptOutcome } from "../../server/db/webhookDeliveries.js";
import { LAST_DELIVERY_SEQ } from "../../server/domain/deliveryOrder.js";
import { useTestDatabase } from "../helpers/database.js";

const database = useTestDatabase();
let accountId: string;
let webhookId: string;

beforeAll(async () => {
  const { db } = database();
  accountId = (await ensureAccount(db, "finish-release")).id;
  [{ id: webhookId }] = await db("webhooks")
    .insert({ account_id: accountId, name: "w", url: "https://example.com/", secret: "whsec_x" })
    .returning("id");
});

/** A sent message with its two receipts pending: dlr.sent (seq 1) and dlr.delivered (the last seq). */
async function messageWithReceipts() {
  const { db } = database();
  const { rows } = await db.raw(
    `INSERT INTO messages (account_id, job_id, recipient, sender, body, status, scheduled_at, sent_at, delivered_at, segments, encoding)
     VALUES (?, gen_random_uuid(), '+14155550100', 'ACME', 'hi', 'delivered', now(), now(), now(), 1, 'GSM-7') RETURNING id`,
    [accountId],
  );
  const messageId: string = rows[0].id;
  const receipts = await db("webhook_deliveries")
    .insert([
      { webhook_id: webhookId, account_id: accountId, message_id: messageId, event: "dlr.sent", seq: 1, body: "{}" },
      { webhook_id: webhookId, account_id: accountId, message_id: messageId, event: "dlr.delivered", seq: LAST_DELIVERY_SEQ, body: "{}" },
    ])
    .returning(["id", "seq"]);
  const bySeq = (seq: number) => receipts.find((r: { seq: number }) => r.seq === seq)!.id as string;
  return { messageId, sentReceipt: bySeq(1), lastReceipt: bySeq(LAST_DELIVERY_SEQ) };
}

function succeeded(id: string, messageId: string, seq: number): AttemptOutcome {
  return {
    id,
    accountId,
    messageId,
    webhookId,
    seq,
    status: "succeeded",
    attempt: { at: new Date().toISOString(), responseStatus: 200, error: null, durationMs: 1 },
  };
}

/** The statements `fn` sends. */
async function statementsOf(fn: () => Promise<unknown>): Promise<string[]> {
  const { db } = database();
  const sent: string[] = [];
  const record = (q: { sql: string }) => sent.push(q.sql);
  db.on("query", record);
  try {
    await fn();
  } finally {
    db.off("query", record);
  }
  return sent;
}

describe("finishing deliveries", () => {
  it("releases the receipt parked behind a finished earlier one, with its job", async () => {
    const { db } = database();
    const m = await messageWithReceipts();
    const parked = await parkBehindEarlier(db, [{ id: m.lastReceipt, accountId, messageId: m.messageId, seq: LAST_DELIVERY_SEQ }]);
    expect([...parked]).toEqual([m.lastReceipt]);

    const sent = await statementsOf(() => finishDeliveries(db, [succeeded(m.sentReceipt, m.messageId, 1)]));
    expect(sent).toHaveLength(2); // the finish, then the release

    const later = await db("webhook_deliveries").where({ id: m.lastReceipt }).first();
    expect(later.parked).toBe(false);
    const jobs = await db("jobs").where({ kind: "deliver_receipt" }).whereRaw("payload->>'deliveryId' = ?", [m.lastReceipt]);
    expect(jobs).toHaveLength(1);
  });

  it("sends no release when the finished deliveries are all of the last seq", async () => {
    const { db } = database();
    const a = await messageWithReceipts();
    const b = await messageWithReceipts();
    const sent = await statementsOf(() =>
      finishDeliveries(db, [
        succeeded(a.lastReceipt, a.messageId, LAST_DELIVERY_SEQ),
        succeeded(b.lastReceipt, b.messageId, LAST_DELIVERY_SEQ),
      ]),
    );
    expect(sent).toHaveLength(1);
    const finished = await db("webhook_deliveries").whereIn("id", [a.lastReceipt, b.lastReceipt]).select("status", "finished_at");
    expect(finished.map((r: { status: string }) => r.status)).toEqual(["succeeded", "succeeded"]);
    expect(finished.every((r: { finished_at: Date | null }) => r.finished_at !== null)).toBe(true);
  });

  it("a batch with one earlier delivery among last-seq ones still releases", async () => {
    const { db } = database();
    const a = await messageWithReceipts();
    const b = await messageWithReceipts();
    await parkBehindEarlier(db, [{ id: b.lastReceipt, accountId, messageId: b.messageId, seq: LAST_DELIVERY_SEQ }]);
    const sent = await statementsOf(() =>
      finishDeliveries(db, [succeeded(a.lastReceipt, a.messageId, LAST_DELIVERY_SEQ), succeeded(b.sentReceipt, b.messageId, 1)]),
    );
    expect(sent).toHaveLength(2);
    expect((await db("webhook_deliveries").where({ id: b.lastReceipt }).first()).parked).toBe(false);
  });

  it("a delivery is marked for parking only while an earlier one of its message is pending", async () => {
    const { db } = database();
    const m = await messageWithReceipts();
    const load = async () => {
      const rows = await loadDeliveriesForDispatch(db, [
        { id: m.sentReceipt, accountId },
        { id: m.lastReceipt, accountId },
      ]);
      return Object.fromEntries(rows.map((r) => [r.id, r.earlierPending]));
    };
    expect(await load()).toEqual({ [m.sentReceipt]: false, [m.lastReceipt]: true });
    await finishDeliveries(db, [succeeded(m.sentReceipt, m.messageId, 1)]);
    expect(await load()).toEqual({ [m.sentReceipt]: false, [m.lastReceipt]: false });
  });
});
