import { describe, expect, it } from "vitest";
import { inHours, problemOf, useTestServer } from "../helpers/server.js";

const server = useTestServer();

describe("Idempotency-Key on schedule", () => {
  const body = () => ({ to: "+14155550123", body: "hello", from: "ACME", scheduledAt: inHours(3) });

  it("replays the first response for the same key and body and creates nothing", async () => {
    const a = await server().account();
    const b = body();
    const first = await a.request("POST", "/api/v1/scheduler/schedule", b, { "Idempotency-Key": "order-42" });
    expect(first.status).toBe(201);
    const firstText = await first.text();
    // Same body with keys in another order is the same request.
    const reordered = { scheduledAt: b.scheduledAt, from: b.from, body: b.body, to: b.to };
    const again = await a.request("POST", "/api/v1/scheduler/schedule", reordered, { "Idempotency-Key": "order-42" });
    expect(again.status).toBe(201);
    // The first response byte for byte (jsonb would have reordered its keys: jobId before messageId).
    expect(await again.text()).toBe(firstText);
    const { data } = await a.client.GET("/api/v1/messages");
    expect(data!.data).toHaveLength(1);
  });

  it("answers 409 idempotency_key_reused for the same key with another body", async () => {
    const a = await server().account();
    await a.request("POST", "/api/v1/scheduler/schedule", body(), { "Idempotency-Key": "k1" });
    const res = await a.request("POST", "/api/v1/scheduler/schedule", { ...body(), body: "other" }, { "Idempotency-Key": "k1" });
    expect(res.status).toBe(409);
    expect((await problemOf(res)).code).toBe("idempotency_key_reused");
  });

  it("creates exactly one message when 20 identical requests race, and a racing different body gets 409", async () => {
    const a = await server().account();
    const b = body();
    const [results, other] = await Promise.all([
      Promise.all(Array.from({ length: 20 }, () => a.request("POST", "/api/v1/scheduler/schedule", b, { "Idempotency-Key": "race" }))),
      a.request("POST", "/api/v1/scheduler/schedule", { ...b, body: "different" }, { "Idempotency-Key": "race" }),
    ]);
    const bodies = (await Promise.all(results.map((r) => r.json()))) as { messageId: string }[];
    // The different body either lost the race (409) or won it, and then the 20 identical ones got 409.
    const statuses = results.map((r) => r.status);
    if (other.status === 201) expect(statuses).toEqual(Array(20).fill(409));
    else {
      expect(other.status).toBe(409);
      expect((await problemOf(other)).code).toBe("idempotency_key_reused");
      expect(statuses).toEqual(Array(20).fill(201));
      expect(new Set(bodies.map((x) => x.messageId)).size).toBe(1);
    }
    const { data } = await a.client.GET("/api/v1/messages");
    expect(data!.data).toHaveLength(1);
  });

  it("scopes keys to the account and forgets them after 24 hours", async () => {
    const a = await server().account();
    const b = await server().account();
    const ra = await a.request("POST", "/api/v1/scheduler/schedule", body(), { "Idempotency-Key": "shared" });
    const rb = await b.request("POST", "/api/v1/scheduler/schedule", body(), { "Idempotency-Key": "shared" });
    expect(((await ra.json()) as { messageId: string }).messageId).not.toBe(((await rb.json()) as { messageId: string }).messageId);

    await server()
      .db("idempotency_keys")
      .where({ account_id: a.accountId })
      .update({ created_at: new Date(Date.now() - 25 * 3600_000) });
    const later = await a.request("POST", "/api/v1/scheduler/schedule", { ...body(), body: "new day" }, { "Idempotency-Key": "shared" });
    expect(later.status).toBe(201);
  });

  it("does not store a failed request under the key", async () => {
    const a = await server().account();
    const bad = await a.request("POST", "/api/v1/scheduler/schedule", { ...body(), to: "12345" }, { "Idempotency-Key": "fix-me" });
    expect(bad.status).toBe(400);
    const good = await a.request("POST", "/api/v1/scheduler/schedule", body(), { "Idempotency-Key": "fix-me" });
    expect(good.status).toBe(201);
  });

  it("rejects a key longer than 255 characters", async () => {
    const a = await server().account();
    const res = await a.request("POST", "/api/v1/scheduler/schedule", body(), { "Idempotency-Key": "k".repeat(256) });
    expect(res.status).toBe(400);
  });
});

describe("Idempotency-Key on POST /campaigns", () => {
  const body = () => ({
    name: "Launch",
    message: "hello",
    type: "scheduled",
    scheduledAt: inHours(3),
    recipients: ["+14155550123", "+14155550124"],
  });
  const counts = async (accountId: string) => {
    const [row] = (
      await server().db.raw(
        `SELECT (SELECT count(*) FROM campaigns WHERE account_id = :accountId) AS campaigns,
                (SELECT count(*) FROM jobs WHERE payload->>'campaignId' IN (SELECT id::text FROM campaigns WHERE account_id = :accountId)) AS "fanoutJobs"`,
        { accountId },
      )
    ).rows as { campaigns: number; fanoutJobs: number }[];
    return row!;
  };

  it("replays the first response for the same key and body and creates nothing more", async () => {
    const a = await server().account();
    const b = body();
    const first = await a.request("POST", "/api/v1/campaigns", b, { "Idempotency-Key": "campaign-1" });
    expect(first.status).toBe(201);
    const firstBody = await first.json();
    const again = await a.request(
      "POST",
      "/api/v1/campaigns",
      { ...b, recipients: [...b.recipients] },
      { "Idempotency-Key": "campaign-1" },
    );
    expect(again.status).toBe(201);
    expect(await again.json()).toEqual(firstBody);
    expect(await counts(a.accountId)).toEqual({ campaigns: 1, fanoutJobs: 1 });
    // Without a key, every request is a new campaign.
    expect((await a.request("POST", "/api/v1/campaigns", b)).status).toBe(201);
    expect((await counts(a.accountId)).campaigns).toBe(2);
  });

  it("answers 409 idempotency_key_reused for the same key with another body, and creates nothing", async () => {
    const a = await server().account();
    await a.request("POST", "/api/v1/campaigns", body(), { "Idempotency-Key": "campaign-2" });
    const res = await a.request("POST", "/api/v1/campaigns", { ...body(), name: "Other" }, { "Idempotency-Key": "campaign-2" });
    expect(res.status).toBe(409);
    expect((await problemOf(res)).code).toBe("idempotency_key_reused");
    expect(await counts(a.accountId)).toEqual({ campaigns: 1, fanoutJobs: 1 });
  });

  it("creates exactly one campaign when 10 identical requests race", async () => {
    const a = await server().account();
    const b = body();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => a.request("POST", "/api/v1/campaigns", b, { "Idempotency-Key": "campaign-race" })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    const ids = (await Promise.all(results.map((r) => r.json()))) as { campaignId: string }[];
    expect(new Set(ids.map((x) => x.campaignId)).size).toBe(1);
    expect(await counts(a.accountId)).toEqual({ campaigns: 1, fanoutJobs: 1 });
  });
});
