// Property test of the ledger (docs/BILLING.md, "The ledger"): random sequences of what happens to an account's
// money — sends delivered, refused by the carrier (failed: refunded) or undelivered (kept), batches, scheduled
// messages cancelled or opted out before their time (refunded), marketing messages held by quiet hours past
// their validity (expired: refunded), credits, and retention deleting finished messages — run against a real
// server, worker and database. After each sequence, whatever it was: the ledger sums to the balance, no message
// is charged twice or refunded twice, no refund is without its charge, a message is refunded exactly when it
// never reached a carrier, and the balance is the credits less the messages that stayed charged.
// LEDGER_PROPERTY_RUNS sets how many sequences (4 by default: each waits for its messages to end), and
// LEDGER_PROPERTY_SEED which (fixed by default, so CI runs the same ones every time).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { retainAccountMessages } from "../../server/db/retention.js";
import { inHours, useTestServer, type TestAccount, type TestOperator } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer(fastWorkerConfig);
useTestWorker(server);
const RUNS = Number(process.env.LEDGER_PROPERTY_RUNS ?? 4);
const PRICE = 7500;

type Outcome = "delivered" | "refused" | "undelivered";
type Op =
  | { kind: "send"; outcome: Outcome }
  | { kind: "batch"; outcomes: Outcome[] }
  | { kind: "schedule" }
  | { kind: "cancel"; which: number }
  | { kind: "optOut"; which: number }
  | { kind: "expire" }
  | { kind: "credit"; amount: number }
  | { kind: "retention" };

const outcome = fc.constantFrom<Outcome>("delivered", "refused", "undelivered");
const anOp: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("send" as const), outcome }),
  fc.record({ kind: fc.constant("batch" as const), outcomes: fc.array(outcome, { minLength: 1, maxLength: 3 }) }),
  fc.record({ kind: fc.constant("schedule" as const) }),
  fc.record({ kind: fc.constant("cancel" as const), which: fc.nat(5) }),
  fc.record({ kind: fc.constant("optOut" as const), which: fc.nat(5) }),
  fc.record({ kind: fc.constant("expire" as const) }),
  fc.record({ kind: fc.constant("credit" as const), amount: fc.integer({ min: -20_000, max: 50_000 }).filter((n) => n !== 0) }),
  fc.record({ kind: fc.constant("retention" as const) }),
);

/** Quiet hours from an hour ago to an hour on in New York (the zone of +1212 numbers): now is inside. */
function quietNow(): { start: string; end: string } {
  const hm = (offsetMs: number) =>
    new Intl.DateTimeFormat("en-GB", { timeZone: "America/New_York", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(
      new Date(Date.now() + offsetMs),
    );
  return { start: hm(-3_600_000), end: hm(3_600_000) };
}

let serial = 0;
/** A fresh number whose last four digits pick the simulator's outcome (0001 refused, 0002 undelivered). */
function number(o: Outcome): string {
  serial += 1;
  const suffix = o === "refused" ? "0001" : o === "undelivered" ? "0002" : String(1000 + (serial % 8000));
  return `+1212555${suffix}`;
}

async function run(op: TestOperator, a: TestAccount, ops: Op[]): Promise<number> {
  let credits = 1_000_000;
  const scheduled: { id: string; to: string }[] = [];
  const ok = async (res: Promise<Response>, expected: number[]) => {
    const r = await res;
    expect(expected, await r.clone().text()).toContain(r.status);
    return r;
  };
  for (const o of ops) {
    if (o.kind === "send") await ok(a.request("POST", "/api/v1/messages", { to: number(o.outcome), from: "ACME", body: "now" }), [201]);
    if (o.kind === "batch")
      await ok(
        a.request("POST", "/api/v1/messages/batch", { messages: o.outcomes.map((x) => ({ to: number(x), from: "ACME", body: "batch" })) }),
        [200],
      );
    if (o.kind === "schedule") {
      const to = number("delivered");
      const res = await ok(
        a.request("POST", "/api/v1/scheduler/schedule", {
          to,
          from: "ACME",
          body: "later",
          scheduledAt: new Date(Date.now() + 1500).toISOString(),
        }),
        [201],
      );
      scheduled.push({ id: ((await res.json()) as { messageId: string }).messageId, to });
    }
    // 409 once it is sending or sent; 404 once retention deleted it (cancelled or final, it may be).
    if (o.kind === "cancel" && scheduled.length)
      await ok(a.request("DELETE", `/api/v1/scheduler/cancel/${scheduled[o.which % scheduled.length]!.id}`), [200, 404, 409]);
    if (o.kind === "optOut" && scheduled.length)
      await ok(a.request("PUT", `/api/v1/opt-outs/${encodeURIComponent(scheduled[o.which % scheduled.length]!.to)}`), [200, 201, 204]);
    if (o.kind === "expire")
      await ok(
        a.request("POST", "/api/v1/messages", {
          to: number("delivered"),
          from: "ACME",
          body: "sale",
          category: "marketing",
          validityPeriod: 1,
        }),
        [201],
      );
    if (o.kind === "credit") {
      await ok(op.request("POST", `/api/v1/accounts/${a.accountId}/credits`, { amount: o.amount, note: "property" }), [201]);
      credits += o.amount;
    }
    if (o.kind === "retention")
      await retainAccountMessages(server().db, "delete", { accountId: a.accountId, before: new Date(inHours(1)), limit: 1000 });
  }
  return credits;
}

describe("the ledger, whatever happens to an account's messages", () => {
  it(`keeps its invariants over ${RUNS} random sequences`, { timeout: 60_000 + RUNS * 30_000 }, async () => {
    const { db } = server();
    const op = await server().operator();
    expect(
      (await op.request("PUT", "/api/v1/price-lists/property", { currency: "USD", entries: [{ country: "US", pricePerSegment: PRICE }] }))
        .status,
    ).toBe(201);
    await fc.assert(
      fc.asyncProperty(fc.array(anOp, { minLength: 3, maxLength: 10 }), async (ops) => {
        const a = await server().account();
        // Postpaid, so every send is accepted whatever the credits did; quiet hours now, for the expiries.
        expect((await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, { priceList: "property" })).status).toBe(200);
        expect(
          (await a.request("PATCH", "/api/v1/account/settings", { quietHours: quietNow(), defaultTimeZone: "America/New_York" })).status,
        ).toBe(200);
        expect((await op.request("POST", `/api/v1/accounts/${a.accountId}/credits`, { amount: 1_000_000, note: "start" })).status).toBe(
          201,
        );
        const credits = await run(op, a, ops);
        await waitUntil(
          "every message final",
          async () => {
            const n = await db("messages")
              .where({ account_id: a.accountId })
              .whereIn("status", ["scheduled", "sending", "sent"])
              .count({ n: "*" });
            return Number(n[0]!.n) === 0 || undefined;
          },
          20_000,
        );
        const { rows } = await db.raw(
          `SELECT (SELECT coalesce(sum(amount), 0) FROM ledger_entries WHERE account_id = ?)::bigint AS ledger,
                  (SELECT balance FROM account_balances WHERE account_id = ?) AS balance,
                  (SELECT count(*) FILTER (WHERE reason = 'message_charge') - count(*) FILTER (WHERE reason = 'message_refund')
                     FROM ledger_entries WHERE account_id = ?)::int AS kept,
                  (SELECT count(*) FROM (SELECT message_id, reason FROM ledger_entries WHERE account_id = ? AND message_id IS NOT NULL
                                           GROUP BY 1, 2 HAVING count(*) > 1) twice)::int AS twice,
                  (SELECT count(*) FROM ledger_entries r WHERE r.account_id = ? AND r.reason = 'message_refund'
                      AND NOT EXISTS (SELECT FROM ledger_entries c WHERE c.account_id = r.account_id AND c.message_id = r.message_id
                                        AND c.reason = 'message_charge'))::int AS orphans,
                  (SELECT count(*) FROM messages m WHERE m.account_id = ?
                      AND (m.status = 'cancelled' OR (m.status = 'failed' AND m.sent_at IS NULL))
                        <> EXISTS (SELECT FROM ledger_entries r WHERE r.account_id = m.account_id AND r.message_id = m.id
                                     AND r.reason = 'message_refund'))::int AS misrefunded`,
          Array(6).fill(a.accountId),
        );
        const r = rows[0];
        expect(r).toMatchObject({ twice: 0, orphans: 0, misrefunded: 0 });
        expect(r.ledger).toBe(r.balance);
        expect(r.balance).toBe(credits - PRICE * r.kept);
      }),
      // A fixed seed, so a run is the same sequences every time (LEDGER_PROPERTY_SEED tries others).
      { numRuns: RUNS, endOnFailure: true, seed: Number(process.env.LEDGER_PROPERTY_SEED ?? 20261129) },
    );
  });
});
