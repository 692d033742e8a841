// Sending like every carrier API (CONTRACT "Send now and batches", "Your reference on every message"): send
// now, batches with per-item results, your own reference and metadata, and the guards of schedule on both paths.
import { describe, expect, it } from "vitest";
import { inHours, problemOf, useTestServer, type TestAccount } from "../helpers/server.js";

const server = useTestServer();
const limited = useTestServer({ rateLimitPerSecond: 1, rateLimitBurst: 5, rateLimitBulkPerSecond: 1, rateLimitBulkBurst: 5 });

const item = (over: Record<string, unknown> = {}) => ({ to: "+14155550123", from: "ACME", body: "Your code is 482913", ...over });

async function batch(a: TestAccount, messages: unknown[], headers: Record<string, string> = {}) {
  const res = await a.request("POST", "/api/v1/messages/batch", { messages }, headers);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as {
    batchId: string;
    accepted: number;
    rejected: number;
    results: ({ index: number; messageId: string } | { index: number; error: { code: string; detail: string; path: string | null } })[];
  };
}

describe("send now", () => {
  it("without scheduledAt the message is due at once; with one it must be in the future (422)", async () => {
    const a = await server().account();
    const before = Date.now();
    const res = await a.request("POST", "/api/v1/messages", item({ reference: "login-1", metadata: { user: "7731" } }));
    expect(res.status).toBe(201);
    const sent = (await res.json()) as { messageId: string; scheduledAt: string; status: string };
    expect(sent.status).toBe("scheduled");
    expect(new Date(sent.scheduledAt).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(new Date(sent.scheduledAt).getTime()).toBeLessThanOrEqual(Date.now());
    const message = (await (await a.request("GET", `/api/v1/messages/${sent.messageId}`)).json()) as Record<string, unknown>;
    expect(message).toMatchObject({ reference: "login-1", metadata: { user: "7731" }, batchId: null, sentBody: null });

    const past = await a.request("POST", "/api/v1/messages", item({ scheduledAt: new Date(Date.now() - 60_000).toISOString() }));
    expect((await problemOf(past)).code).toBe("scheduled_at_not_in_future");
    const later = await a.request("POST", "/api/v1/messages", item({ scheduledAt: inHours(2) }));
    expect(later.status).toBe(201);
    // The seed's schedule keeps scheduledAt required.
    const { scheduledAt: _omitted, ...noTime } = { ...item(), scheduledAt: "x" };
    expect((await a.request("POST", "/api/v1/scheduler/schedule", noTime)).status).toBe(400);
  });

  it("applies the guards and idempotency of schedule; metadata of 11 keys or a bad key is 400", async () => {
    const a = await server().account();
    const premium = await a.request("POST", "/api/v1/messages", item({ to: "+449098765432" }));
    expect((await problemOf(premium)).code).toBe("destination_not_allowed");
    const unheld = await a.request("POST", "/api/v1/messages", item({ from: "+14155550999" }));
    expect((await problemOf(unheld)).code).toBe("sender_not_allowed");
    await a.request("PUT", "/api/v1/opt-outs/%2B14155550124");
    expect((await problemOf(await a.request("POST", "/api/v1/messages", item({ to: "+14155550124" })))).code).toBe("recipient_opted_out");
    const eleven = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, "v"]));
    const tooMany = await a.request("POST", "/api/v1/messages", item({ metadata: eleven }));
    expect(tooMany.status).toBe(400);
    expect((await problemOf(tooMany)).errors).toEqual([expect.objectContaining({ path: "/body/metadata" })]);
    expect((await a.request("POST", "/api/v1/messages", item({ metadata: { "bad key": "v" } }))).status).toBe(400);
    expect((await a.request("POST", "/api/v1/messages", item({ metadata: { k: "v".repeat(501) } }))).status).toBe(400);

    const first = await a.request("POST", "/api/v1/messages", item(), { "Idempotency-Key": "otp-1" });
    const again = await a.request("POST", "/api/v1/messages", item(), { "Idempotency-Key": "otp-1" });
    expect(await again.json()).toEqual(await first.json());
    expect((await a.request("GET", "/api/v1/messages?reference=none")).status).toBe(200);
  });
});

describe("batches", () => {
  it("stores every valid item, reports every invalid one by index, and lists and cancels by batchId", async () => {
    const a = await server().account();
    await a.request("PUT", "/api/v1/opt-outs/%2B14155550133");
    const result = await batch(a, [
      item({ to: "+14155550131", body: "one", reference: "A-1", scheduledAt: inHours(1) }),
      item({ to: "not a phone" }),
      item({ to: "+449098765432" }),
      item({ to: "+14155550133" }),
      { to: "+14155550134", body: "no sender" },
      item({ to: "+14155550135", extra: true }),
      item({ to: "+14155550136", from: "+14155550999" }),
      item({ to: "+14155550131", body: "one again (duplicates allowed)", scheduledAt: inHours(1) }),
      item({ to: "+14155550137", scheduledAt: new Date(Date.now() - 1000).toISOString() }),
    ]);
    expect(result.accepted).toBe(2);
    expect(result.rejected).toBe(7);
    const errors = Object.fromEntries(result.results.flatMap((r) => ("error" in r ? [[r.index, r.error]] : [])));
    expect(errors).toEqual({
      1: expect.objectContaining({ code: "validation_failed", path: "/body/messages/1/to" }),
      2: expect.objectContaining({ code: "destination_not_allowed", path: "/body/messages/2/to" }),
      3: expect.objectContaining({ code: "recipient_opted_out", path: "/body/messages/3/to" }),
      4: expect.objectContaining({ code: "validation_failed", path: "/body/messages/4/from" }),
      5: expect.objectContaining({ code: "validation_failed", path: "/body/messages/5/extra" }),
      6: expect.objectContaining({ code: "sender_not_allowed", path: "/body/messages/6/from" }),
      8: expect.objectContaining({ code: "scheduled_at_not_in_future", path: "/body/messages/8/scheduledAt" }),
    });
    expect(result.results.map((r) => r.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    // An item's refusal speaks of that item: the batch's other items were accepted.
    for (const e of Object.values(errors)) expect(e.detail, e.code).not.toMatch(/nothing was/);

    const listed = (await (await a.request("GET", `/api/v1/messages?batchId=${result.batchId}`)).json()) as {
      data: { messageId: string; batchId: string }[];
    };
    const ids = result.results.flatMap((r) => ("messageId" in r ? [r.messageId] : []));
    expect(listed.data.map((m) => m.messageId).sort()).toEqual(ids.sort());
    expect(listed.data.every((m) => m.batchId === result.batchId)).toBe(true);
    const byRef = (await (await a.request("GET", "/api/v1/messages?reference=A-1")).json()) as { data: unknown[] };
    expect(byRef.data).toHaveLength(1);

    const cancelled = await a.request("POST", `/api/v1/batches/${result.batchId}/cancel`);
    expect(await cancelled.json()).toEqual({ batchId: result.batchId, cancelled: 2 });
    expect(await (await a.request("POST", `/api/v1/batches/${result.batchId}/cancel`)).json()).toEqual({
      batchId: result.batchId,
      cancelled: 0,
    });
    const other = await server().account();
    expect((await other.request("POST", `/api/v1/batches/${result.batchId}/cancel`)).status).toBe(404);
  });

  it("a repeat with the same Idempotency-Key creates nothing; a malformed envelope is refused whole (400)", async () => {
    const a = await server().account();
    const messages = [item({ to: "+14155550141" }), item({ to: "+14155550142" })];
    const first = await batch(a, messages, { "Idempotency-Key": "batch-1" });
    const again = await batch(a, messages, { "Idempotency-Key": "batch-1" });
    expect(again).toEqual(first);
    expect(await server().db("messages").where({ account_id: a.accountId }).count({ n: "*" })).toEqual([{ n: 2 }]);
    expect((await a.request("POST", "/api/v1/messages/batch", { messages: [] })).status).toBe(400);
    expect((await a.request("POST", "/api/v1/messages/batch", { messages: [item()], more: 1 })).status).toBe(400);
    expect((await a.request("POST", "/api/v1/messages/batch", [item()])).status).toBe(400);
  });

  it("accepts 10,000 items and a body over 1 MiB, and refuses 10,001", async () => {
    const a = await server().account();
    const many = Array.from({ length: 10_000 }, (_, i) =>
      item({
        to: `+1415555${String(1000 + (i % 8000)).padStart(4, "0")}`,
        body: `Order ${i} has shipped, thank you for shopping with ACME.`,
        scheduledAt: inHours(1),
      }),
    );
    expect(JSON.stringify({ messages: many }).length).toBeGreaterThan(1024 * 1024);
    const result = await batch(a, many);
    expect(result).toMatchObject({ accepted: 10_000, rejected: 0 });
    const over = await a.request("POST", "/api/v1/messages/batch", { messages: [...many, item()] });
    expect(over.status).toBe(400);
  });

  it("with a daily quota, the accepted items together must fit, or nothing is stored (429)", async () => {
    const op = await server().operator();
    const a = await server().account();
    await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, { dailySegmentQuota: 3 });
    const res = await a.request("POST", "/api/v1/messages/batch", { messages: [item(), item(), item(), item()] });
    expect(res.status).toBe(429);
    expect((await problemOf(res)).code).toBe("quota_exceeded");
    expect(await server().db("messages").where({ account_id: a.accountId }).count({ n: "*" })).toEqual([{ n: 0 }]);
    expect(await batch(a, [item(), item({ to: "+449098765432" })])).toMatchObject({ accepted: 1, rejected: 1 });
  });
});

describe("preview and smart encoding", () => {
  it("counts a text and what smart encoding would make of it, sending nothing", async () => {
    const a = await server().account();
    const res = await a.request("POST", "/api/v1/messages/preview", { body: "Your order’s on its way — thanks!", smartEncoding: true });
    expect(await res.json()).toEqual({
      encoding: "GSM-7",
      segments: 1,
      characters: 33,
      charactersLeftInLastSegment: 127,
      smartEncoded: {
        body: "Your order's on its way - thanks!",
        replacements: [
          { from: "’", to: "'", count: 1 },
          { from: "—", to: "-", count: 1 },
        ],
      },
    });
    const plain = (await (await a.request("POST", "/api/v1/messages/preview", { body: "Your order’s on its way" })).json()) as Record<
      string,
      unknown
    >;
    expect(plain).toMatchObject({ encoding: "UCS-2", smartEncoded: null });
    expect(await server().db("messages").where({ account_id: a.accountId }).count({ n: "*" })).toEqual([{ n: 0 }]);
  });

  it("a smart-encoded message keeps its body, shows sentBody and counts what is sent; the account setting is the default", async () => {
    const a = await server().account();
    const send = async (over: Record<string, unknown>) => {
      const res = await a.request("POST", "/api/v1/messages", item({ body: "It’s here — today", scheduledAt: inHours(1), ...over }));
      const { messageId } = (await res.json()) as { messageId: string };
      return (await (await a.request("GET", `/api/v1/messages/${messageId}`)).json()) as Record<string, unknown>;
    };
    expect(await send({ smartEncoding: true })).toMatchObject({
      body: "It’s here — today",
      sentBody: "It's here - today",
      encoding: "GSM-7",
    });
    expect(await send({})).toMatchObject({ sentBody: null, encoding: "UCS-2" });
    await a.request("PATCH", "/api/v1/account/settings", { smartEncoding: true });
    expect(await send({})).toMatchObject({ sentBody: "It's here - today", encoding: "GSM-7" });
    expect(await send({ smartEncoding: false })).toMatchObject({ sentBody: null, encoding: "UCS-2" });
    expect(await send({ body: "It’s 🎉" })).toMatchObject({ sentBody: null, encoding: "UCS-2" });
  });
});

describe("the new paths keep the other checks of schedule", () => {
  it("a test key's messages are test messages; validity counts from now; priority and category are kept", async () => {
    const a = await server().account();
    const testKey = (await (await a.request("POST", "/api/v1/keys", { test: true })).json()) as { key: string };
    const as = (path: string, body: unknown) =>
      fetch(`${server().baseUrl}${path}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${testKey.key}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
    const sent = (await (await as("/api/v1/messages", item({ validityPeriod: 300, priority: "high", category: "marketing" }))).json()) as {
      messageId: string;
      scheduledAt: string;
    };
    const message = (await (await a.request("GET", `/api/v1/messages/${sent.messageId}`)).json()) as Record<string, string | boolean>;
    expect(message).toMatchObject({ test: true, priority: "high", category: "marketing" });
    expect(new Date(message.validUntil as string).getTime() - new Date(sent.scheduledAt).getTime()).toBe(300_000);
    const batched = (await (await as("/api/v1/messages/batch", { messages: [item()] })).json()) as { results: { messageId: string }[] };
    const inBatch = (await (await a.request("GET", `/api/v1/messages/${batched.results[0]!.messageId}`)).json()) as { test: boolean };
    expect(inBatch.test).toBe(true);
  });

  it("a batch costs a bulk row per item: after a batch larger than the bulk burst the next bulk request waits, a read does not", async () => {
    const a = await limited().account();
    const res = await a.request("POST", "/api/v1/messages/batch", { messages: Array.from({ length: 20 }, () => item()) });
    expect(res.status).toBe(200);
    const next = await a.request("POST", "/api/v1/messages/batch", { messages: [item()] });
    expect(next.status).toBe(429);
    expect(Number(next.headers.get("retry-after"))).toBeGreaterThan(5);
    expect((await a.request("GET", "/api/v1/messages")).status).toBe(200);
  });
});
