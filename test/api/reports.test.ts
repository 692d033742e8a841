// GET /api/v1/reports/messages (docs/REPORTS.md): hours and days in the account's zone, DST-correct and true
// days for a +05:30 zone; time to delivered from its documented buckets; the delivery rate; one account's
// report never counts another's; the operator's across accounts; bad queries are 4xx problems.
import { describe, expect, it } from "vitest";
import { updateStatusesWithReceipts } from "../../server/db/messages/index.js";
import type { StoredStatus } from "../../server/domain/messageStatus.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";

const server = useTestServer();

/** A message stored as if made at `createdAt` (the counting trigger sees it as any other), with its history. */
async function stored(
  a: TestAccount,
  m: { to?: string; createdAt: string; campaignId?: string; history?: { status: string; afterSeconds: number; errorCode?: string }[] },
) {
  const db = server().db;
  // On the wire already (`sending`), so its history is made by the status change every send goes through.
  const { rows } = await db.raw<{ rows: { id: string }[] }>(
    `INSERT INTO messages (account_id, job_id, recipient, sender, body, scheduled_at, created_at, segments, encoding, country, error_code, campaign_id, status)
     VALUES (?, gen_random_uuid(), ?, 'ACME', 'hi', ?::timestamptz, ?::timestamptz, 2, 'GSM-7', ?, ?, ?, 'sending') RETURNING id`,
    [
      a.accountId,
      m.to ?? "+14155550100",
      m.createdAt,
      m.createdAt,
      (m.to ?? "+1").startsWith("+44") ? "GB" : "US",
      m.history?.find((h) => h.errorCode)?.errorCode ?? null,
      m.campaignId ?? null,
    ],
  );
  for (const h of m.history ?? []) {
    const at = new Date(new Date(m.createdAt).getTime() + h.afterSeconds * 1000);
    const update = { messageId: rows[0]!.id, accountId: a.accountId, at, body: "{}" };
    const { changed } = await updateStatusesWithReceipts(db, h.status as StoredStatus, [update], { event: `dlr.${h.status}`, seq: 1 });
    expect(changed).toHaveLength(1);
  }
}

async function report(a: { request: TestAccount["request"] }, query: string) {
  const res = await a.request("GET", `/api/v1/reports/messages?${query}`);
  return {
    status: res.status,
    body: (await res.json()) as { tz: string; since: string; until: string; rows: Record<string, unknown>[]; code?: string },
  };
}

describe("GET /api/v1/reports/messages", () => {
  it("counts days in the account's zone: a +05:30 day starts at 18:30 UTC", async () => {
    const a = await server().account();
    expect((await a.request("PATCH", "/api/v1/account/settings", { defaultTimeZone: "Asia/Kolkata" })).status).toBe(200);
    await stored(a, { createdAt: "2026-11-25T18:29:00Z" }); // 23:59 on the 25th in Kolkata
    await stored(a, { createdAt: "2026-11-25T18:31:00Z" }); // 00:01 on the 26th
    await stored(a, { createdAt: "2026-11-25T18:44:59Z" });
    const { status, body } = await report(a, "since=2026-11-25T00:00:00Z&until=2026-11-27T00:00:00Z&groupBy=day");
    expect(status).toBe(200);
    expect(body.tz).toBe("Asia/Kolkata");
    expect(body.rows.map((r) => [r.day, r.accepted])).toEqual([
      ["2026-11-25", 1],
      ["2026-11-26", 2],
    ]);
  });

  it("keeps the repeated hour of a DST end apart by its offset", async () => {
    const a = await server().account();
    await stored(a, { createdAt: "2026-11-01T05:10:00Z" }); // 01:10 EDT
    await stored(a, { createdAt: "2026-11-01T06:10:00Z" }); // 01:10 EST
    await stored(a, { createdAt: "2026-11-01T06:50:00Z" });
    const { body } = await report(a, "since=2026-11-01T00:00:00Z&until=2026-11-02T00:00:00Z&groupBy=hour&tz=America/New_York");
    expect(body.rows.map((r) => [r.hour, r.accepted])).toEqual([
      ["2026-11-01T01:00:00-04:00", 1],
      ["2026-11-01T01:00:00-05:00", 2],
    ]);
    const days = await report(a, "since=2026-11-01T00:00:00Z&until=2026-11-02T00:00:00Z&groupBy=day&tz=America/New_York");
    expect(days.body.rows).toMatchObject([{ day: "2026-11-01", accepted: 3 }]);
  });

  it("gives time to delivered from its buckets, the delivery rate, segments sent, by status and country", async () => {
    const a = await server().account();
    const at = "2026-11-20T10:00:00Z";
    for (let i = 0; i < 9; i++)
      await stored(a, {
        createdAt: at,
        history: [
          { status: "sent", afterSeconds: 1 },
          { status: "delivered", afterSeconds: 3 },
        ],
      });
    await stored(a, {
      to: "+447400123456",
      createdAt: at,
      history: [
        { status: "sent", afterSeconds: 1 },
        { status: "delivered", afterSeconds: 40 },
      ],
    });
    await stored(a, {
      createdAt: at,
      history: [
        { status: "sent", afterSeconds: 1 },
        { status: "undelivered", afterSeconds: 9, errorCode: "number_inactive" },
      ],
    });
    const window = "since=2026-11-20T00:00:00Z&until=2026-11-21T00:00:00Z";
    const [total] = (await report(a, window)).body.rows;
    expect(total).toMatchObject({
      accepted: 11,
      sent: 11,
      delivered: 10,
      undelivered: 1,
      failed: 0,
      segments: 22,
      deliveryRate: 0.9091,
      timeToDeliveredP50: 5,
      timeToDeliveredP95: 60,
    });
    const byCountry = (await report(a, `${window}&groupBy=country,status`)).body.rows;
    expect(byCountry.filter((r) => r.status === "delivered").map((r) => [r.country, r.delivered])).toEqual([
      ["GB", 1],
      ["US", 9],
    ]);
    const errors = (await report(a, `${window}&groupBy=errorCode`)).body.rows;
    expect(errors.find((r) => r.errorCode === "number_inactive")).toMatchObject({ undelivered: 1 });
  });

  it("reports one campaign's messages by hour", async () => {
    const a = await server().account();
    const [campaign] = await server()
      .db("campaigns")
      .insert({ account_id: a.accountId, name: "spring", message: "x", type: "instant", sender: "ACME", status: "completed" })
      .returning("id");
    await stored(a, { createdAt: "2026-09-01T10:05:00Z", campaignId: campaign.id, history: [{ status: "sent", afterSeconds: 1 }] });
    await stored(a, { createdAt: "2026-09-01T11:05:00Z", campaignId: campaign.id });
    await stored(a, { createdAt: "2026-09-01T10:10:00Z" });
    const { body } = await report(a, `since=2026-09-01T00:00:00Z&until=2026-09-02T00:00:00Z&groupBy=hour&campaignId=${campaign.id}`);
    expect(body.rows.map((r) => [r.hour, r.accepted, r.sent])).toEqual([
      ["2026-09-01T10:00:00+00:00", 1, 1],
      ["2026-09-01T11:00:00+00:00", 1, 0],
    ]);
  });

  it("never counts another account's messages; the operator's report splits every account", async () => {
    const a = await server().account();
    const b = await server().account();
    await stored(a, { createdAt: "2026-10-10T10:00:00Z" });
    await stored(a, { createdAt: "2026-10-10T10:05:00Z" });
    await stored(b, { createdAt: "2026-10-10T10:00:00Z" });
    const window = "since=2026-10-10T00:00:00Z&until=2026-10-11T00:00:00Z";
    expect((await report(b, `${window}&accountId=${a.accountId}`)).body.rows).toMatchObject([{ accepted: 1 }]);
    const operator = await server().operator();
    const all = (await report(operator, `${window}&groupBy=account`)).body;
    expect(all.tz).toBe("UTC");
    expect(
      all.rows
        .filter((r) => r.accountId === a.accountId || r.accountId === b.accountId)
        .map((r) => r.accepted)
        .sort(),
    ).toEqual([1, 2]);
  });

  it("answers bad queries with 4xx problems", async () => {
    const a = await server().account();
    for (const query of [
      "groupBy=week",
      "groupBy=day,day",
      "groupBy=day,status,country",
      "since=2026-11-02T00:00:00Z&until=2026-11-01T00:00:00Z",
      "since=2024-01-01T00:00:00Z&until=2026-01-01T00:00:00Z",
      "since=yesterday",
    ]) {
      const { status, body } = await report(a, query);
      expect([status, body.code], query).toEqual([400, "validation_failed"]);
    }
    const zone = await report(a, "tz=Mars/Olympus_Mons");
    expect([zone.status, zone.body.code]).toEqual([422, "invalid_time_zone"]);
  });
});
