// Prices, balances and the ledger (docs/BILLING.md) through the API on a real server and database: price lists
// and how a price is chosen, the price fixed on each message, a prepaid balance that concurrent sends never
// overdraw, batches refused per item, refunds exactly once for what never reached a carrier, the operator's
// credits, and the ledger always summing to the balance.
import { beforeAll, describe, expect, it } from "vitest";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";
import { inHours, useTestServer, type TestAccount, type TestOperator } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { startReceiver } from "../helpers/receiver.js";

const server = useTestServer(fastWorkerConfig);
useTestWorker(server);
let op: TestOperator;

const LIST = {
  currency: "USD",
  entries: [
    { prefix: "+1415", pricePerSegment: 5000 },
    { prefix: "+14155", pricePerSegment: 6000 },
    { country: "US", pricePerSegment: 7500 },
    { country: "GB", pricePerSegment: 32000 },
  ],
  default: null,
};

beforeAll(async () => {
  op = await server().operator();
  expect((await op.request("PUT", "/api/v1/price-lists/retail", LIST)).status).toBe(201);
});

/** An account priced by `retail`, with these billing fields. */
async function pricedAccount(name: string, billing: Record<string, unknown> = {}): Promise<TestAccount> {
  const a = await server().account(name);
  const res = await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, { priceList: "retail", ...billing });
  expect(res.status, await res.clone().text()).toBe(200);
  return a;
}

const send = (a: TestAccount, to: string, body = "Your code is 1234") => a.request("POST", "/api/v1/messages", { to, from: "ACME", body });
const json = async <T = Record<string, unknown>>(res: Response | Promise<Response>) => (await (await res).json()) as T;
const balanceOf = (a: TestAccount) => json<{ balance: number; available: number | null }>(a.request("GET", "/api/v1/account/balance"));
const ledgerOf = async (a: TestAccount) =>
  (
    await json<{ data: { amount: number; reason: string; messageId: string | null; balanceAfter: number }[] }>(
      a.request("GET", "/api/v1/account/ledger?limit=100"),
    )
  ).data;

/** The invariant: the sum of the ledger is the balance, read from the database. */
async function expectLedgerSumsToBalance(a: TestAccount): Promise<void> {
  const { rows } = await server().db.raw(
    `SELECT (SELECT coalesce(sum(amount), 0) FROM ledger_entries WHERE account_id = ?)::bigint AS sum,
            (SELECT balance FROM account_balances WHERE account_id = ?) AS balance`,
    [a.accountId, a.accountId],
  );
  expect(rows[0].sum).toBe(rows[0].balance);
}

describe("price lists", () => {
  it("are put (201, then 200), read, listed; bad entries are 400; one in use is not deleted nor changes currency", async () => {
    const again = await op.request("PUT", "/api/v1/price-lists/retail", LIST);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ name: "retail", currency: "USD", entries: LIST.entries, default: null });
    expect(await json(op.request("GET", "/api/v1/price-lists/retail"))).toMatchObject({ name: "retail" });
    expect((await json<{ data: { name: string }[] }>(op.request("GET", "/api/v1/price-lists"))).data.map((l) => l.name)).toContain(
      "retail",
    );
    expect((await op.request("GET", "/api/v1/price-lists/nothing")).status).toBe(404);

    const both = await op.request("PUT", "/api/v1/price-lists/bad", {
      currency: "USD",
      entries: [{ prefix: "+1", country: "US", pricePerSegment: 1 }],
    });
    expect(both.status).toBe(400);
    const twice = await op.request("PUT", "/api/v1/price-lists/bad", {
      currency: "USD",
      entries: [
        { prefix: "+1", pricePerSegment: 1 },
        { prefix: "+1", pricePerSegment: 2 },
      ],
    });
    expect(twice.status).toBe(400);
    expect(((await twice.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe("/body/entries/1");
    const fraction = await op.request("PUT", "/api/v1/price-lists/bad", {
      currency: "USD",
      entries: [{ prefix: "+1", pricePerSegment: 0.5 }],
    });
    expect(fraction.status).toBe(400);
    // A currency that is not ISO 4217, a country that does not exist: 400 naming the field.
    const zzz = await op.request("PUT", "/api/v1/price-lists/bad", { currency: "ZZZ", entries: [] });
    expect(zzz.status).toBe(400);
    expect(((await zzz.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe("/body/currency");
    const xx = await op.request("PUT", "/api/v1/price-lists/bad", {
      currency: "USD",
      entries: [
        { prefix: "+1", pricePerSegment: 7500 },
        { country: "XX", pricePerSegment: 50000 },
      ],
    });
    expect(xx.status).toBe(400);
    expect(((await xx.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe("/body/entries/1/country");
    expect((await op.request("GET", "/api/v1/price-lists/bad")).status).toBe(404);

    await pricedAccount("price-list-user");
    expect((await op.request("DELETE", "/api/v1/price-lists/retail")).status).toBe(409);
    const euros = await op.request("PUT", "/api/v1/price-lists/retail", { ...LIST, currency: "EUR" });
    expect(euros.status).toBe(409);
    expect(((await euros.json()) as { code: string }).code).toBe("price_list_in_use");

    expect((await op.request("PUT", "/api/v1/price-lists/spare", { currency: "EUR", entries: [] })).status).toBe(201);
    expect((await op.request("DELETE", "/api/v1/price-lists/spare")).status).toBe(204);
    expect((await op.request("DELETE", "/api/v1/price-lists/spare")).status).toBe(404);
  });

  it("an account's price list must exist and share its currency (422)", async () => {
    const a = await server().account("price-list-checks");
    const missing = await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, { priceList: "nope" });
    expect(missing.status).toBe(422);
    expect(((await missing.json()) as { code: string }).code).toBe("price_list_not_found");
    const mismatch = await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, { priceList: "retail", currency: "EUR" });
    expect(mismatch.status).toBe(422);
    expect(((await mismatch.json()) as { code: string }).code).toBe("currency_mismatch");
    const zzz = await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, { currency: "ZZZ" });
    expect(zzz.status).toBe(400);
    expect(((await zzz.json()) as { errors: { path: string }[] }).errors[0]!.path).toBe("/body/currency");
    const account = await json<{ limits: Record<string, unknown> }>(op.request("GET", `/api/v1/accounts/${a.accountId}`));
    expect(account.limits).toMatchObject({ priceList: null, currency: "USD", billing: "postpaid", creditLimit: 0, chargeOn: "submitted" });
  });
});

describe("prices on messages", () => {
  it("the longest prefix wins, then the country, then the default; none is 422 no_price and nothing is stored", async () => {
    const a = await pricedAccount("price-choice");
    const priceOf = async (to: string, body?: string) => {
      const res = await send(a, to, body);
      expect(res.status, await res.clone().text()).toBe(201);
      const { messageId } = (await res.json()) as { messageId: string };
      return (await json<{ price: unknown }>(a.request("GET", `/api/v1/messages/${messageId}`))).price;
    };
    expect(await priceOf("+14155550123")).toEqual({ amount: 6000, currency: "USD", perSegment: 6000 });
    expect(await priceOf("+14158880123")).toEqual({ amount: 5000, currency: "USD", perSegment: 5000 });
    expect(await priceOf("+12125550123")).toEqual({ amount: 7500, currency: "USD", perSegment: 7500 });
    // Two segments: twice the price of one.
    expect(await priceOf("+447400123456", "x".repeat(200))).toEqual({ amount: 64000, currency: "USD", perSegment: 32000 });

    const before = await server().db("messages").where({ account_id: a.accountId }).count({ n: "*" }).first();
    const unpriced = await send(a, "+33612345678");
    expect(unpriced.status).toBe(422);
    expect(await unpriced.json()).toMatchObject({ code: "no_price", errors: [{ path: "/body/to" }] });
    const after = await server().db("messages").where({ account_id: a.accountId }).count({ n: "*" }).first();
    expect(after!.n).toBe(before!.n);

    // The export ends each row with the price.
    const exported = await (await a.request("GET", "/api/v1/exports/messages")).text();
    expect(exported.split("\n")[0]).toMatch(/,priceAmount,priceCurrency,pricePerSegment$/);
    expect(exported).toMatch(/,"64000","USD","32000"\r?$/m);
    // A postpaid account goes below zero; every charge is in the ledger with the balance after it.
    expect(await balanceOf(a)).toMatchObject({ balance: -(6000 + 5000 + 7500 + 64000), available: null });
    const ledger = await ledgerOf(a);
    expect(ledger.filter((e) => e.reason === "message_charge")).toHaveLength(4);
    expect(Math.min(...ledger.map((e) => e.balanceAfter))).toBe(-(6000 + 5000 + 7500 + 64000));
    await expectLedgerSumsToBalance(a);
  });

  it("a changed price list prices the next message at once, in this process and another's copy alike", async () => {
    const list = `changing-${Date.now() % 1e9}`;
    const put = (pricePerSegment: number) =>
      op.request("PUT", `/api/v1/price-lists/${list}`, { currency: "USD", entries: [{ country: "US", pricePerSegment }] });
    expect((await put(1000)).status).toBe(201);
    const a = await server().account("price-change");
    expect((await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, { priceList: list })).status).toBe(200);
    const priced = async () => {
      const res = await send(a, "+12125550161");
      expect(res.status, await res.clone().text()).toBe(201);
      const { messageId } = (await res.json()) as { messageId: string };
      return (await json<{ price: { amount: number } }>(a.request("GET", `/api/v1/messages/${messageId}`))).price.amount;
    };
    expect(await priced()).toBe(1000);
    expect(await priced()).toBe(1000);
    expect((await put(2000)).status).toBe(200);
    expect(await priced()).toBe(2000);
    // Changed behind this process's back (as another API process would): the statement sees it is stale.
    await server()
      .db("price_lists")
      .where({ name: list })
      .update({
        entries: JSON.stringify([{ country: "US", pricePerSegment: 3000 }]),
        updated_at: server().db.raw("now() + interval '1 second'"),
      });
    expect(await priced()).toBe(3000);
    expect(await balanceOf(a)).toMatchObject({ balance: -(1000 + 1000 + 2000 + 3000) });
    await expectLedgerSumsToBalance(a);
  });

  it("an account without a price list has no price on its messages and no ledger", async () => {
    const a = await server().account("unpriced");
    const res = await send(a, "+14155550123");
    const { messageId } = (await res.json()) as { messageId: string };
    expect((await json<{ price: unknown }>(a.request("GET", `/api/v1/messages/${messageId}`))).price).toBeNull();
    expect(await ledgerOf(a)).toEqual([]);
  });
});

describe("a prepaid balance", () => {
  it("50 concurrent sends against a balance that pays exactly 20: 20 accepted, 30 × 402, never below -creditLimit", async () => {
    const a = await pricedAccount("prepaid-race", { billing: "prepaid", creditLimit: 10_000 });
    // 20 × 7,500 = 150,000 = 140,000 of balance + 10,000 of credit.
    expect((await op.request("POST", `/api/v1/accounts/${a.accountId}/credits`, { amount: 140_000, note: "top-up" })).status).toBe(201);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => send(a, `+1212555${String(1000 + i)}`)));
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    expect(statuses.filter((s) => s === 402)).toHaveLength(30);
    const refused = answers.find((r) => r.status === 402)!;
    expect(await refused.json()).toMatchObject({ status: 402, code: "insufficient_funds" });
    expect(await balanceOf(a)).toMatchObject({ balance: -10_000, available: 0 });
    const { rows } = await server().db.raw("SELECT count(*)::int AS n FROM messages WHERE account_id = ?", [a.accountId]);
    expect(rows[0].n).toBe(20);
    await expectLedgerSumsToBalance(a);
  });

  it("a batch is refused item by item once the balance runs out; the rest is stored", async () => {
    const a = await pricedAccount("prepaid-batch", { billing: "prepaid" });
    await op.request("POST", `/api/v1/accounts/${a.accountId}/credits`, { amount: 22_500, note: "three messages" });
    const res = await a.request("POST", "/api/v1/messages/batch", {
      messages: Array.from({ length: 5 }, (_, i) => ({ to: `+1212556${String(1100 + i)}`, from: "ACME", body: `item ${i}` })),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const result = (await res.json()) as { accepted: number; rejected: number; results: { index: number; error?: { code: string } }[] };
    expect(result).toMatchObject({ accepted: 3, rejected: 2 });
    expect(result.results.filter((r) => r.error).map((r) => [r.index, r.error!.code])).toEqual([
      [3, "insufficient_funds"],
      [4, "insufficient_funds"],
    ]);
    expect((await balanceOf(a)).balance).toBe(0);
    await expectLedgerSumsToBalance(a);
  });
});

describe("refunds", () => {
  it("a cancelled message is refunded once, however often it is cancelled", async () => {
    const a = await pricedAccount("refund-cancel", { billing: "prepaid" });
    await op.request("POST", `/api/v1/accounts/${a.accountId}/credits`, { amount: 10_000, note: "top-up" });
    const res = await a.request("POST", "/api/v1/scheduler/schedule", {
      to: "+12125550123",
      from: "ACME",
      body: "later",
      scheduledAt: inHours(1),
    });
    expect(res.status).toBe(201);
    const { messageId } = (await res.json()) as { messageId: string };
    expect((await balanceOf(a)).balance).toBe(2_500);
    for (let i = 0; i < 3; i++) expect((await a.request("DELETE", `/api/v1/scheduler/cancel/${messageId}`)).status).toBe(200);
    expect((await balanceOf(a)).balance).toBe(10_000);
    const entries = (await ledgerOf(a)).filter((e) => e.messageId === messageId);
    expect(entries.map((e) => [e.reason, e.amount]).sort()).toEqual([
      ["message_charge", -7_500],
      ["message_refund", 7_500],
    ]);
    await expectLedgerSumsToBalance(a);
  });

  it("a message that fails before reaching a carrier (opted out by its time) is refunded; a delivered one stays charged", async () => {
    const a = await pricedAccount("refund-failed");
    const receiver = await startReceiver();
    const hook = await a.request("POST", "/api/v1/webhooks", { name: "receipts", url: receiver.url });
    expect(hook.status).toBe(201);
    const later = new Date(Date.now() + 1500).toISOString();
    const res = await a.request("POST", "/api/v1/scheduler/schedule", {
      to: "+12125550177",
      from: "ACME",
      body: "soon",
      scheduledAt: later,
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const { messageId } = (await res.json()) as { messageId: string };
    expect((await a.request("PUT", "/api/v1/opt-outs/+12125550177")).status).toBeLessThan(300);
    const delivered = (await json<{ messageId: string }>(send(a, "+12125550178"))).messageId;
    await waitUntil("both messages final", async () => {
      const [one, two] = await Promise.all(
        [messageId, delivered].map((id) => json<{ status: string }>(a.request("GET", `/api/v1/messages/${id}`))),
      );
      return one!.status === "failed" && two!.status === "delivered" ? true : undefined;
    });
    const ledger = await ledgerOf(a);
    expect(
      ledger
        .filter((e) => e.messageId === messageId)
        .map((e) => e.reason)
        .sort(),
    ).toEqual(["message_charge", "message_refund"]);
    expect(ledger.filter((e) => e.messageId === delivered).map((e) => e.reason)).toEqual(["message_charge"]);
    expect((await balanceOf(a)).balance).toBe(-7_500);
    await expectLedgerSumsToBalance(a);
    // Its receipts carry the price.
    const [receipt] = await receiver.waitFor("the delivered receipt", (all) => all.some((r) => r.json.event === "dlr.delivered"));
    expect(receiver.received.find((r) => r.json.event === "dlr.delivered")!.json).toMatchObject({
      messageId: delivered,
      price: { amount: 7_500, currency: "USD", perSegment: 7_500 },
    });
    expect(receipt).toBeDefined();
    await receiver.close();
  });
});

describe("campaigns", () => {
  const campaign = (a: TestAccount, recipients: string[], extra: Record<string, unknown> = {}) =>
    a.request("POST", "/api/v1/campaigns", {
      name: `c${Date.now()}`,
      message: "Sale today",
      type: "instant",
      from: "ACME",
      recipients,
      ...extra,
    });
  // From 1100 on: the simulator fails numbers ending in 0001 (and never finishes 0003), which would refund them.
  const recipients = (n: number, base: number) => Array.from({ length: n }, (_, i) => `+1212557${String(1100 + base + i)}`);

  it("reserve the whole audience's cost at creation, refused whole (402) when a prepaid balance cannot pay it", async () => {
    const a = await pricedAccount("campaign-prepaid", { billing: "prepaid" });
    await op.request("POST", `/api/v1/accounts/${a.accountId}/credits`, { amount: 75_000, note: "ten messages" });
    const tooMany = await campaign(a, recipients(11, 0));
    expect(tooMany.status).toBe(402);
    expect((await balanceOf(a)).balance).toBe(75_000);
    expect((await server().db("campaigns").where({ account_id: a.accountId })).length).toBe(0);

    const res = await campaign(a, recipients(10, 100));
    expect(res.status, await res.clone().text()).toBe(201);
    const { campaignId } = (await res.json()) as { campaignId: string };
    // Reserved at once: a second campaign, or a send, finds nothing left.
    expect((await balanceOf(a)).balance).toBe(0);
    expect((await send(a, "+12125550199")).status).toBe(402);
    await waitUntil("the campaign's ten messages made", async () => {
      const { rows } = await server().db.raw("SELECT count(*)::int AS n FROM messages WHERE campaign_id = ?", [campaignId]);
      return rows[0].n === 10 || undefined;
    });
    await waitUntil("its reservation released into charges", async () => {
      const ledger = await ledgerOf(a);
      return ledger.filter((e) => e.reason === "message_charge").length === 10 && ledger.some((e) => e.reason === "campaign_release")
        ? true
        : undefined;
    });
    expect((await balanceOf(a)).balance).toBe(0);
    await expectLedgerSumsToBalance(a);
  });

  it("give back, when cancelled, what they reserved for messages not yet sent", async () => {
    const a = await pricedAccount("campaign-cancelled", { billing: "prepaid" });
    await op.request("POST", `/api/v1/accounts/${a.accountId}/credits`, { amount: 100_000, note: "top-up" });
    const res = await campaign(a, recipients(4, 200), { type: "scheduled", scheduledAt: inHours(2) });
    expect(res.status, await res.clone().text()).toBe(201);
    const { campaignId } = (await res.json()) as { campaignId: string };
    expect((await balanceOf(a)).balance).toBe(70_000);
    // Its cost before it starts: the audience as priced, what the reservation took.
    expect(await json(a.request("GET", `/api/v1/campaigns/${campaignId}`))).toMatchObject({ cost: { estimated: 30_000, currency: "USD" } });
    expect((await a.request("POST", `/api/v1/campaigns/${campaignId}/cancel`)).status).toBeLessThan(300);
    await waitUntil("everything given back", async () => ((await balanceOf(a)).balance === 100_000 ? true : undefined));
    await expectLedgerSumsToBalance(a);
  });
});

describe("account.balance_low", () => {
  it("is posted once per crossing of the threshold, again only after the balance was back above it", { timeout: 150_000 }, async () => {
    const a = await pricedAccount("balance-low", { billing: "prepaid", lowBalanceThreshold: 20_000 });
    const receiver = await startReceiver();
    try {
      const hook = await a.request("POST", "/api/v1/webhooks", { name: "money", url: receiver.url, events: ["account.balance_low"] });
      expect(hook.status, await hook.clone().text()).toBe(201);
      await op.request("POST", `/api/v1/accounts/${a.accountId}/credits`, { amount: 35_000, note: "top-up" });
      const lows = () => receiver.received.filter((r) => r.json.event === "account.balance_low");
      // 35,000 → 27,500 (above) → 20,000 (at: not below) → 12,500 (below: the event) → 5,000 (still below: none).
      for (let i = 0; i < 4; i++) expect((await send(a, `+1212558${String(1100 + i)}`)).status).toBe(201);
      await receiver.waitFor("the first balance_low", () => lows().length >= 1, 60_000);
      expect(lows()[0]!.json).toMatchObject({
        event: "account.balance_low",
        balance: 12_500,
        lowBalanceThreshold: 20_000,
        currency: "USD",
      });
      // Back above (a credit), then below again: a second event.
      await op.request("POST", `/api/v1/accounts/${a.accountId}/credits`, { amount: 30_000, note: "top-up" });
      for (let i = 4; i < 7; i++) expect((await send(a, `+1212558${String(1100 + i)}`)).status).toBe(201);
      // Written in the transaction of the send that crossed: exactly two events were ever made, the second
      // with the balance of the second crossing (their delivery is the webhook dispatcher's, shown above).
      const { rows } = await server().db.raw(
        "SELECT body FROM webhook_deliveries WHERE account_id = ? AND event = 'account.balance_low' ORDER BY created_at, id",
        [a.accountId],
      );
      expect(
        rows.map((r: { body: string }) => JSON.parse(r.body) as { balance: number }).map((b: { balance: number }) => b.balance),
      ).toEqual([12_500, 12_500]);
    } finally {
      await receiver.close();
    }
  });
});

describe("credits", () => {
  it("the operator credits and corrects an account (audited); zero is 400; an account key may not", async () => {
    const a = await server().account("credited");
    const credit = await op.request("POST", `/api/v1/accounts/${a.accountId}/credits`, { amount: 5_000_000, note: "invoice 118" });
    expect(credit.status).toBe(201);
    const entry = (await credit.json()) as { entryId: string };
    expect(entry).toMatchObject({ amount: 5_000_000, reason: "credit", note: "invoice 118", balanceAfter: 5_000_000, messageId: null });
    const correction = await op.request("POST", `/api/v1/accounts/${a.accountId}/credits`, { amount: -1_000_000, note: "correction" });
    expect(await correction.json()).toMatchObject({ balanceAfter: 4_000_000 });
    expect((await op.request("POST", `/api/v1/accounts/${a.accountId}/credits`, { amount: 0, note: "nothing" })).status).toBe(400);
    expect((await a.request("POST", `/api/v1/accounts/${a.accountId}/credits`, { amount: 1, note: "self" })).status).toBe(403);
    expect(await balanceOf(a)).toMatchObject({ balance: 4_000_000, currency: "USD", billing: "postpaid" });
    // The operator sees it on the account, and in the list of accounts.
    expect(await json(op.request("GET", `/api/v1/accounts/${a.accountId}`))).toMatchObject({ balance: 4_000_000 });
    const listed = await json<{ data: { accountId: string; balance: number }[] }>(op.request("GET", "/api/v1/accounts?limit=100"));
    expect(listed.data.find((x) => x.accountId === a.accountId)?.balance).toBe(4_000_000);
    const audited = await server().db("audit_events").where({ account_id: a.accountId, action: "OperatorCredits_create" });
    expect(audited.map((e) => e.resource_id)).toContain(entry.entryId);
    await expectLedgerSumsToBalance(a);
  });
});

describe("spend in reports", () => {
  type Row = Record<string, unknown> & { spend: number };
  const reportOf = async (a: TestAccount, groupBy: string) => {
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const res = await a.request("GET", `/api/v1/reports/messages?since=${since}&until=${until}&groupBy=${groupBy}`);
    expect(res.status, await res.clone().text()).toBe(200);
    return (await json<{ rows: Row[] }>(res)).rows;
  };
  const finalStatus = async (a: TestAccount, ids: string[], statuses: string[]) =>
    waitUntil("every message final", async () => {
      const all = await Promise.all(ids.map((id) => json<{ status: string }>(a.request("GET", `/api/v1/messages/${id}`))));
      return all.every((m, i) => m.status === statuses[i]) ? true : undefined;
    });

  it("counts a charge once it is final (sent), by country and status; a cancelled message never counts", async () => {
    const a = await pricedAccount("spend-submitted");
    const ids = [];
    for (const to of ["+12125550181", "+12125550182", "+447400123456"]) {
      const res = await send(a, to);
      expect(res.status, await res.clone().text()).toBe(201);
      ids.push((await json<{ messageId: string }>(res)).messageId);
    }
    const later = await a.request("POST", "/api/v1/scheduler/schedule", {
      to: "+12125550183",
      from: "ACME",
      body: "later",
      scheduledAt: inHours(2),
    });
    const cancelled = (await json<{ messageId: string }>(later)).messageId;
    expect((await a.request("DELETE", `/api/v1/scheduler/cancel/${cancelled}`)).status).toBe(200);
    await finalStatus(a, ids, ["delivered", "delivered", "delivered"]);
    const byCountry = await reportOf(a, "country");
    expect(byCountry.map((r) => [r.country, r.spend])).toEqual([
      ["GB", 32_000],
      ["US", 15_000],
    ]);
    // Under its status: the charge became final when sent.
    const byStatus = Object.fromEntries((await reportOf(a, "status")).map((r) => [r.status, r.spend]));
    expect(byStatus).toMatchObject({ sent: 47_000, delivered: 0, cancelled: 0 });
    // It equals the prices of the messages sent, read directly.
    const { rows } = await server().db.raw(
      "SELECT sum(price_amount)::bigint AS spend FROM messages WHERE account_id = ? AND sent_at IS NOT NULL",
      [a.accountId],
    );
    expect(rows[0].spend).toBe(47_000);
  });

  it("charging on delivery counts only what was delivered, when it was", async () => {
    const a = await pricedAccount("spend-delivered", { chargeOn: "delivered" });
    const delivered = (await json<{ messageId: string }>(send(a, "+12125550184"))).messageId;
    const undelivered = (await json<{ messageId: string }>(send(a, "+12125550002"))).messageId;
    await finalStatus(a, [delivered, undelivered], ["delivered", "undelivered"]);
    const byStatus = Object.fromEntries((await reportOf(a, "status")).map((r) => [r.status, r.spend]));
    expect(byStatus).toMatchObject({ sent: 0, delivered: 7_500, undelivered: 0 });
    expect((await reportOf(a, "day")).map((r) => r.spend)).toEqual([7_500]);
    await expectLedgerSumsToBalance(a);
  });
});
