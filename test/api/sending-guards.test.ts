// The abuse guards on every sending path (CONTRACT "Abuse guards"): premium-rate and shared-cost destinations
// and countries outside allowedCountries refused (a campaign skips them), and the daily segment quota, which
// 50 concurrent requests never pass.
import { describe, expect, it } from "vitest";
import { destinationProblem } from "../../server/domain/sendingGuards.js";
import { problemOf, scheduleBody, useTestServer } from "../helpers/server.js";

const server = useTestServer();
const networksAllowed = useTestServer({ allowInternationalNetworks: true });

const PREMIUM_GB = "+449098765432";
const SHARED_COST_FR = "+33810123456";
const MOBILE_DE = "+4915123456789";

const schedule = scheduleBody;

describe("destinations", () => {
  it("refuses premium-rate and shared-cost numbers, and countries outside allowedCountries (422)", async () => {
    const op = await server().operator();
    const a = await server().account();
    for (const to of [PREMIUM_GB, SHARED_COST_FR]) {
      const res = await a.request("POST", "/api/v1/scheduler/schedule", schedule({ to }));
      expect(res.status, to).toBe(422);
      expect(await problemOf(res)).toMatchObject({ code: "destination_not_allowed", errors: [{ path: "/body/to" }] });
    }
    expect((await a.request("POST", "/api/v1/scheduler/schedule", schedule({ to: MOBILE_DE }))).status).toBe(201);
    await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, { allowedCountries: ["US", "CA"] });
    const de = await a.request("POST", "/api/v1/scheduler/schedule", schedule({ to: MOBILE_DE }));
    expect((await problemOf(de)).code).toBe("destination_not_allowed");
    expect((await a.request("POST", "/api/v1/scheduler/schedule", schedule({ to: "+16135550123" }))).status).toBe(201);
  });

  it("refuses numbers of no country (satellite, international networks) unless the deployment allows them", async () => {
    // Inmarsat, Iridium, an international network, another, international freephone.
    const ranges = ["+870772001799", "+8816310000000", "+88213400000", "+883510000000", "+80012345678"];
    const a = await server().account();
    for (const to of ranges) {
      const res = await a.request("POST", "/api/v1/messages", { to, from: "ACME", body: "hi" });
      expect(res.status, to).toBe(422);
      const problem = await problemOf(res);
      expect(problem, to).toMatchObject({ code: "destination_not_allowed", errors: [{ path: "/body/to" }] });
      expect(problem.detail, to).toContain(`international network range (+${to.slice(1, 4)})`);
    }
    const batch = await a.request("POST", "/api/v1/messages/batch", {
      messages: [ranges[1], MOBILE_DE].map((to) => ({ to, from: "ACME", body: "hi" })),
    });
    expect(await batch.json()).toMatchObject({ accepted: 1, rejected: 1, results: [{ error: { code: "destination_not_allowed" } }, {}] });
    const campaign = await a.request("POST", "/api/v1/campaigns", {
      name: "boats",
      message: "hi",
      type: "instant",
      from: "ACME",
      recipients: [ranges[0], MOBILE_DE],
    });
    expect(campaign.status).toBe(201);
    const { campaignId } = (await campaign.json()) as { campaignId: string };
    const stats = (
      (await (await a.request("GET", `/api/v1/campaigns/${campaignId}`)).json()) as { stats: { total: number; skipped: number } }
    ).stats;
    expect([stats.total, stats.skipped]).toEqual([1, 1]);
    // A number of a country's code that libphonenumber places in no country (exchange 000, as a contact stored
    // before validation may hold) is not such a range.
    expect(destinationProblem("+14150000001", { allowedCountries: null, internationalNetworks: false })).toBeUndefined();
    // ALLOW_INTERNATIONAL_NETWORKS=1: sent to, as any number (an account's allowedCountries still names no such range).
    const b = await networksAllowed().account();
    for (const to of ranges) expect((await b.request("POST", "/api/v1/messages", { to, from: "ACME", body: "hi" })).status, to).toBe(201);
  });

  it("a campaign skips the recipients it may not reach (stats.skipped), and is 422 empty_audience when none is left", async () => {
    const op = await server().operator();
    const a = await server().account();
    await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, { allowedCountries: ["US"] });
    const res = await a.request("POST", "/api/v1/campaigns", {
      name: "mixed",
      message: "hi",
      type: "scheduled",
      scheduledAt: new Date(Date.now() + 3600_000).toISOString(),
      recipients: ["+14155550123", PREMIUM_GB, MOBILE_DE, "+19002345678"],
    });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { stats: unknown }).stats).toMatchObject({ total: 1, skipped: 3 });

    // A group's contacts too.
    const group = (await (await a.request("POST", "/api/v1/contacts/groups", { name: "g" })).json()) as { groupId: string };
    for (const phone of [PREMIUM_GB, MOBILE_DE]) await a.request("POST", "/api/v1/contacts", { phone, groupId: group.groupId });
    const none = await a.request("POST", "/api/v1/campaigns", { name: "none", message: "hi", type: "instant", groupId: group.groupId });
    expect(none.status).toBe(422);
    expect((await problemOf(none)).code).toBe("empty_audience");
    expect(await server().db("campaigns").where({ account_id: a.accountId }).count({ n: "*" })).toEqual([{ n: 1 }]);
  });
});

describe("the daily segment quota", () => {
  it("50 concurrent requests never pass it; the refused get 429 quota_exceeded with Retry-After; usage is shown", async () => {
    const op = await server().operator();
    const a = await server().account();
    await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, { dailySegmentQuota: 20 });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => a.request("POST", "/api/v1/scheduler/schedule", schedule({ body: `code ${i}` }))),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
    const refused = answers.find((r) => r.status === 429)!;
    expect((await problemOf(refused)).code).toBe("quota_exceeded");
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(await server().db("messages").where({ account_id: a.accountId }).count({ n: "*" })).toEqual([{ n: 20 }]);
    const account = (await (await a.request("GET", "/api/v1/account")).json()) as { usage: unknown };
    expect(account.usage).toEqual({ day: new Date().toISOString().slice(0, 10), segmentsAccepted: 20 });
  });

  it("counts segments as sent, a campaign's whole audience at creation, and warns once at 80 %", async () => {
    const op = await server().operator();
    const a = await server().account();
    expect(
      (await a.request("POST", "/api/v1/webhooks", { name: "quota", url: "http://127.0.0.1:9/hook", events: ["account.quota_warning"] }))
        .status,
    ).toBe(201);
    await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, { dailySegmentQuota: 10 });
    // 161 GSM-7 characters: 2 segments.
    expect((await a.request("POST", "/api/v1/scheduler/schedule", schedule({ body: "x".repeat(161) }))).status).toBe(201);
    const campaign = (n: number) => ({
      name: `c${n}`,
      message: "hi",
      type: "scheduled",
      scheduledAt: new Date(Date.now() + 3600_000).toISOString(),
      recipients: Array.from({ length: n }, (_, i) => `+1415555${String(1000 + i)}`),
    });
    const tooBig = await a.request("POST", "/api/v1/campaigns", campaign(9));
    expect((await problemOf(tooBig)).code).toBe("quota_exceeded");
    expect((await a.request("POST", "/api/v1/campaigns", campaign(6))).status).toBe(201);
    const usage = (await (await a.request("GET", "/api/v1/account")).json()) as { usage: { segmentsAccepted: number } };
    expect(usage.usage.segmentsAccepted).toBe(8);
    expect((await a.request("POST", "/api/v1/scheduler/schedule", schedule())).status).toBe(201);
    const warnings = await server().db("webhook_deliveries").where({ account_id: a.accountId, event: "account.quota_warning" });
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0].body as string)).toMatchObject({
      event: "account.quota_warning",
      segmentsAccepted: 8,
      dailySegmentQuota: 10,
      day: new Date().toISOString().slice(0, 10),
    });
  });

  it("a test key counts toward no quota", async () => {
    const op = await server().operator();
    const a = await server().account();
    await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, { dailySegmentQuota: 1 });
    const made = (await (await a.request("POST", "/api/v1/keys", { test: true })).json()) as { key: string };
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server().baseUrl}/api/v1/scheduler/schedule`, {
        method: "POST",
        headers: { Authorization: `Bearer ${made.key}`, "Content-Type": "application/json" },
        body: JSON.stringify(schedule()),
      });
      expect(res.status).toBe(201);
    }
    const listed = (await (await a.request("GET", "/api/v1/messages?test=true")).json()) as { data: { test: boolean }[] };
    expect(listed.data).toHaveLength(3);
    expect(listed.data.every((m) => m.test)).toBe(true);
    expect(await (await a.request("GET", "/api/v1/messages?test=false")).json()).toEqual({ data: [], nextCursor: null });
  });
});
