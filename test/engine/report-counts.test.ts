// Reports count events as they happen (docs/REPORTS.md): random traffic through the API and a worker (sends the
// simulator delivers, rejects, reports undelivered or never reports; messages cancelled; messages failed at
// their time for an opt-out; inbound messages), then receipts again (duplicates, and late ones contradicting
// the first) → every report total equals a direct count of the messages and their status history. Then
// retention deletes the messages, and the report is unchanged.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { components } from "../../generated/api.js";
import { insertJobs, type NewJob } from "../../server/db/jobs/index.js";
import { compactMessageCounts } from "../../server/db/messageCounts.js";
import { applyRetention } from "../../server/jobs/maintenance/applyRetention.js";
import { useTestServer, inHours, type TestAccount } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer(fastWorkerConfig);
useTestWorker(server);

type Action =
  | { kind: "send"; suffix: "0001" | "0002" | "0003" | "1234"; category: "transactional" | "marketing"; uk: boolean }
  | { kind: "cancel" }
  | { kind: "optOut" }
  | { kind: "inbound" };

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant("send" as const),
      suffix: fc.constantFrom("0001" as const, "0002" as const, "0003" as const, "1234" as const),
      category: fc.constantFrom("transactional" as const, "marketing" as const),
      uk: fc.boolean(),
    }),
    weight: 6,
  },
  { arbitrary: fc.constant({ kind: "cancel" as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: "optOut" as const }), weight: 1 },
  { arbitrary: fc.constant({ kind: "inbound" as const }), weight: 1 },
);

let numbers = 0;
let runs = 0;
/** A new recipient ending in `suffix` (the simulator's outcome): US, or GB. */
const recipient = (suffix: string, uk = false) => {
  numbers += 1;
  return uk ? `+4474${String(numbers % 10_000).padStart(4, "0")}${suffix}` : `+1415${200 + (numbers % 800)}${suffix}`;
};

type Counts = Record<string, number>;

/** The direct count: messages by creation or receipt, and each step of their history (the row's times), of one account. */
async function directCounts(accountId: string): Promise<{ byEvent: Counts; byCountry: Counts; optedOut: number; segments: number }> {
  const db = server().db;
  const { rows } = await db.raw<{ rows: { event: string; country: string | null; opted: boolean; n: string; segments: string }[] }>(
    `SELECT event, country, opted, count(*) AS n, sum(segments) AS segments FROM (
       SELECT CASE WHEN direction = 'inbound' THEN 'received' ELSE 'accepted' END AS event, country, false AS opted, segments
         FROM messages WHERE account_id = ? AND NOT test
       UNION ALL
       SELECT h.status, m.country, h.status = 'failed' AND m.error_code = 'recipient_opted_out', m.segments
         FROM messages m CROSS JOIN LATERAL (VALUES ('sent', m.sent_at),
                                                    (m.status, coalesce(m.delivered_at, m.failed_at, m.cancelled_at))) h(status, at)
        WHERE m.account_id = ? AND NOT m.test AND m.direction = 'outbound' AND h.at IS NOT NULL) e
     GROUP BY event, country, opted`,
    [accountId, accountId],
  );
  const byEvent: Counts = {};
  const byCountry: Counts = {};
  let optedOut = 0;
  let segments = 0;
  for (const r of rows) {
    byEvent[r.event] = (byEvent[r.event] ?? 0) + Number(r.n);
    if (r.event === "accepted") byCountry[r.country ?? ""] = (byCountry[r.country ?? ""] ?? 0) + Number(r.n);
    if (r.opted) optedOut += Number(r.n);
    if (r.event === "sent") segments += Number(r.segments);
  }
  return { byEvent, byCountry, optedOut, segments };
}

/** A report's row, as the document says, read by its keys too. */
type Row = components["schemas"]["ReportRow"] & Record<string, unknown>;
const EVENTS = ["accepted", "received", "sent", "delivered", "failed", "undelivered", "cancelled"] as const;

async function report(a: TestAccount, query: string): Promise<Row[]> {
  const res = await a.request("GET", `/api/v1/reports/messages?${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { rows: Row[] }).rows;
}

/** The report's totals in the shape of the direct count. */
async function reported(a: TestAccount, window: string) {
  const [total] = await report(a, window);
  const byStatus = await report(a, `${window}&groupBy=status`);
  const byCountry = await report(a, `${window}&groupBy=country`);
  const byEvent: Counts = {};
  for (const e of EVENTS) if (total![e] > 0) byEvent[e] = total![e];
  // Grouped by status, each row carries its own event's count alone.
  for (const row of byStatus) expect(row[row.status as string]).toBeGreaterThan(0);
  expect(Object.fromEntries(byStatus.map((r) => [r.status, r[r.status as string]]))).toEqual(byEvent);
  const countries: Counts = {};
  for (const r of byCountry) if (r.accepted > 0) countries[(r.country as string | null) ?? ""] = r.accepted;
  return { byEvent, byCountry: countries, optedOut: total!.optedOut, segments: total!.segments };
}

async function settle(ids: string[], a: TestAccount) {
  await waitUntil("every message at rest", async () => {
    const states = await server().db("messages").where({ account_id: a.accountId }).whereIn("id", ids).select("status", "recipient");
    return states.every((m) => m.status !== "scheduled" && m.status !== "sending" && (m.status !== "sent" || m.recipient.endsWith("0003")));
  });
  await waitUntil("no report job left", async () => {
    const n = await server()
      .db("jobs")
      .where({ kind: "provider_report" })
      .whereIn("state", ["available", "running", "retryable"])
      .count({ n: "*" });
    return Number(n[0]!.n) === 0;
  });
}

describe("report counts", () => {
  it("equal a direct count after random traffic, duplicate and late receipts; they outlive retention", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 4, maxLength: 16 }), fc.nat(4), fc.boolean(), async (actions, again, compactFirst) => {
        const s = server();
        const a = await s.account();
        runs += 1;
        const inboundTo = `+1628${String(200 + runs)}9999`;
        await a.holds(inboundTo);
        const window = `since=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}&until=${encodeURIComponent(inHours(1))}`;
        const ids: string[] = [];
        for (const act of actions) {
          if (act.kind === "send") {
            const res = await a.request("POST", "/api/v1/messages", {
              to: recipient(act.suffix, act.uk),
              from: "ACME",
              body: "hi",
              category: act.category,
            });
            expect(res.status).toBe(201);
            ids.push(((await res.json()) as { messageId: string }).messageId);
          } else if (act.kind === "cancel") {
            const res = await a.request("POST", "/api/v1/scheduler/schedule", {
              to: recipient("1234"),
              from: "ACME",
              body: "later",
              scheduledAt: inHours(1),
            });
            const { messageId } = (await res.json()) as { messageId: string };
            expect((await a.request("DELETE", `/api/v1/scheduler/cancel/${messageId}`)).status).toBeLessThan(300);
            ids.push(messageId);
          } else if (act.kind === "optOut") {
            const to = recipient("1234");
            const res = await a.request("POST", "/api/v1/scheduler/schedule", {
              to,
              from: "ACME",
              body: "soon",
              scheduledAt: new Date(Date.now() + 1500).toISOString(),
            });
            expect(res.status).toBe(201);
            ids.push(((await res.json()) as { messageId: string }).messageId);
            expect((await a.request("PUT", `/api/v1/opt-outs/${encodeURIComponent(to)}`, {})).status).toBeLessThan(300);
          } else {
            const res = await a.request("POST", "/api/v1/simulator/inbound", { from: recipient("5678"), to: inboundTo, body: "hello" });
            expect(res.status).toBe(202);
          }
        }
        await settle(ids, a);
        // Receipts again: the same report twice, and a late one saying the opposite.
        const { rows: reported_ } = await s.db.raw<{ rows: { providerMessageId: string; outcome: "delivered" | "undelivered" }[] }>(
          `SELECT provider_message_id AS "providerMessageId", outcome FROM simulator_submissions
            WHERE message_id = ANY(?::uuid[]) AND outcome IN ('delivered', 'undelivered') LIMIT ?`,
          [ids, again],
        );
        const receipt = (providerMessageId: string, status: "delivered" | "undelivered"): NewJob => ({
          kind: "provider_report",
          payload:
            status === "delivered"
              ? { providerMessageId, status }
              : { providerMessageId, status, error: { code: "number_inactive", message: "inactive" } },
          accountId: null,
        });
        const late = reported_.flatMap((r) => [
          receipt(r.providerMessageId, r.outcome),
          receipt(r.providerMessageId, r.outcome === "delivered" ? "undelivered" : "delivered"),
        ]);
        if (late.length > 0) await s.db.transaction((tx) => insertJobs(tx, late));
        if (compactFirst) await compactMessageCounts(s.db);
        await settle(ids, a);

        const direct = await directCounts(a.accountId);
        const before = await reported(a, window);
        expect(before).toEqual(direct);
        // The operator's report of this account says the same.
        const operator = await s.operator();
        const res = await operator.request("GET", `/api/v1/reports/messages?${window}&accountId=${a.accountId}&groupBy=account`);
        const [mine] = ((await res.json()) as { rows: Row[] }).rows;
        expect(mine).toMatchObject({
          accountId: a.accountId,
          accepted: direct.byEvent.accepted ?? 0,
          received: direct.byEvent.received ?? 0,
        });

        // Time passes (the messages are made 500 days older) and retention deletes the final ones.
        await s.db.raw("UPDATE messages SET created_at = created_at - interval '500 days' WHERE account_id = ?", [a.accountId]);
        await applyRetention(s.db, { messageRetentionDays: 400, deliveryLogRetentionDays: 0, messageBodyRetentionDays: 0, batchSize: 100 });
        await compactMessageCounts(s.db);
        const finalLeft = await s
          .db("messages")
          .where({ account_id: a.accountId })
          .whereIn("status", ["delivered", "failed", "undelivered", "cancelled", "received"])
          .count({ n: "*" });
        expect(Number(finalLeft[0]!.n)).toBe(0);
        expect(await reported(a, window)).toEqual(before);
      }),
      { numRuns: 4 },
    );
  });
});
