// Chaos for the ledger (docs/BILLING.md): a prepaid account's 5,000-recipient campaign sent by two worker
// processes, one of them SIGKILLed three times while it sends (each replaced at once), 300 recipients opted out
// while it runs (refunded at their send time) and the campaign cancelled halfway (its unsent messages refunded,
// what its reservation still held released). Afterwards: every message is charged exactly once, refunded at
// most once and only when it never reached a carrier, nothing is refunded without a charge, the reservation is
// spent or released, and the ledger sums to the balance.
import { afterAll, describe, expect, it } from "vitest";
import { spawnWorkerProcess, type Spawned } from "../helpers/process.js";
import { useTestServer } from "../helpers/server.js";
import { waitUntilSettled } from "../helpers/outcomes.js";
import { waitUntil } from "../helpers/wait.js";

const server = useTestServer();
const workers: Spawned[] = [];
afterAll(() => {
  for (const w of workers) if (w.child.exitCode === null) w.child.kill("SIGKILL");
});

const N = 5000;
const PRICE = 7500;
const CREDIT = N * PRICE + 1_000_000;
// Last four digits 1000 to 5999: none of the simulator's failing or never-final suffixes (0001 to 0003).
const recipient = (i: number) => `+1212${String(3_101_000 + i)}`;

describe("the ledger under worker SIGKILLs, opt-outs and a cancel", { timeout: 240_000 }, () => {
  it("every message charged once, refunded at most once and only unsent, and the ledger sums to the balance", async () => {
    const { db, url } = server();
    const op = await server().operator();
    const a = await server().account("ledger-chaos");
    const put = await op.request("PUT", "/api/v1/price-lists/chaos", {
      currency: "USD",
      entries: [{ country: "US", pricePerSegment: PRICE }],
    });
    expect(put.status).toBe(201);
    // Prepaid, at a pace that keeps it sending for ~30 s (the kills, the opt-outs and the cancel land mid-way, with
    // room for three worker processes to start on a loaded machine).
    const limits = await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, {
      priceList: "chaos",
      billing: "prepaid",
      maxSegmentsPerSecond: 150,
    });
    expect(limits.status, await limits.clone().text()).toBe(200);
    expect((await op.request("POST", `/api/v1/accounts/${a.accountId}/credits`, { amount: CREDIT, note: "chaos" })).status).toBe(201);

    const start = () => {
      const w = spawnWorkerProcess(url, { JOB_LEASE_MS: "3000", SIMULATOR_DELIVERY_DELAY_MS: "50", SEND_OUTCOME_RESOLVE_MS: "5000" });
      workers.push(w.proc);
      return w.ready;
    };
    await Promise.all([start(), start()]);

    const res = await a.request("POST", "/api/v1/campaigns", {
      name: "chaos",
      message: "Sale today",
      type: "instant",
      from: "ACME",
      recipients: Array.from({ length: N }, (_, i) => recipient(i)),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const { campaignId } = (await res.json()) as { campaignId: string };
    const made = async () => Number((await db("messages").where({ campaign_id: campaignId }).count({ n: "*" }))[0]!.n);
    const sent = async () =>
      Number((await db("messages").where({ campaign_id: campaignId }).whereNotNull("sent_at").count({ n: "*" }))[0]!.n);

    // Opted out while it runs: those not sent yet fail at their time, and are refunded.
    await waitUntil("fan-out under way", async () => (await made()) > 0 || undefined, 30_000, 50);
    // A quarter of the way in: reached (and failed) before the cancel, which comes once three eighths are sent.
    for (let i = N / 4; i < N / 4 + 300; i++)
      expect((await a.request("PUT", `/api/v1/opt-outs/${encodeURIComponent(recipient(i))}`)).status).toBeLessThan(300);

    for (let kill = 1; kill <= 3; kill++) {
      await waitUntil(`progress before kill ${kill}`, async () => (await sent()) >= (kill * N) / 8 || undefined, 60_000, 50);
      const victim = workers.filter((w) => w.child.exitCode === null)[kill % 2]!;
      victim.child.kill("SIGKILL");
      await victim.exited;
      await start();
    }
    expect((await a.request("POST", `/api/v1/campaigns/${campaignId}/cancel`)).status).toBeLessThan(300);

    const ids: string[] = await db("messages").where({ campaign_id: campaignId }).pluck("id");
    await waitUntilSettled(db, ids, 120_000);
    await waitUntil("the reservation spent or released", async () => {
      const r = await db("campaign_reservations").where({ account_id: a.accountId, campaign_id: campaignId }).first("remaining");
      return (r?.remaining ?? 0) === 0 || undefined;
    });

    const rows: { id: string; status: string; sent_at: Date | null; charges: number; refunds: number }[] = (
      await db.raw(
        `SELECT m.id, m.status, m.sent_at,
                count(*) FILTER (WHERE l.reason = 'message_charge')::int AS charges,
                count(*) FILTER (WHERE l.reason = 'message_refund')::int AS refunds
           FROM messages m LEFT JOIN ledger_entries l ON l.account_id = m.account_id AND l.message_id = m.id
          WHERE m.campaign_id = ? GROUP BY m.id`,
        [campaignId],
      )
    ).rows;
    expect(rows.length).toBe(ids.length);
    expect(rows.filter((r) => r.charges !== 1)).toEqual([]);
    expect(rows.filter((r) => r.refunds > 1)).toEqual([]);
    // Refunded exactly when it never reached a carrier: cancelled, or failed without being sent.
    const unsent = (r: (typeof rows)[number]) => r.status === "cancelled" || (r.status === "failed" && r.sent_at === null);
    expect(rows.filter((r) => unsent(r) !== (r.refunds === 1))).toEqual([]);
    const refunded = rows.filter((r) => r.refunds === 1).length;
    // The run did what it was for: opt-outs and the cancel refunded some, and kills happened mid-send.
    expect(rows.filter((r) => r.status === "cancelled").length).toBeGreaterThan(0);
    expect(rows.filter((r) => r.status === "failed" && r.sent_at === null).length).toBeGreaterThan(0);

    const { rows: sums } = await db.raw(
      `SELECT (SELECT coalesce(sum(amount), 0) FROM ledger_entries WHERE account_id = ?)::bigint AS ledger,
              (SELECT balance FROM account_balances WHERE account_id = ?) AS balance,
              (SELECT count(*) FROM ledger_entries WHERE account_id = ? AND reason = 'message_refund'
                  AND NOT EXISTS (SELECT FROM ledger_entries c WHERE c.account_id = ledger_entries.account_id
                                    AND c.message_id = ledger_entries.message_id AND c.reason = 'message_charge'))::int AS orphans`,
      [a.accountId, a.accountId, a.accountId],
    );
    expect(sums[0].orphans).toBe(0);
    expect(sums[0].ledger).toBe(sums[0].balance);
    // What it paid in the end: the messages that stayed charged, nothing for recipients never made.
    expect(sums[0].balance).toBe(CREDIT - PRICE * (rows.length - refunded));
    process.stderr.write(
      `ledger chaos: ${rows.length} messages made of ${N}, ${refunded} refunded (${rows.filter((r) => r.status === "cancelled").length} cancelled), balance ${sums[0].balance}\n`,
    );
    for (const w of workers) if (w.child.exitCode === null) w.child.kill("SIGTERM");
    await Promise.all(workers.map((w) => w.exited));
  });
});
