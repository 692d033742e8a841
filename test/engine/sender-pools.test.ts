// Sender pools (docs/ROUTING.md, "Sender pools") through the API and two in-process workers over the simulator:
// the pool's rules (numbers the account holds, unique names, exactly one of from and senderPoolId), the choice at
// send time (sticky, then the recipient's country, then least recently used), a cap of one message a second per
// sender across both workers, a pool deleted under waiting messages, and pools on batches and campaigns.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../server/logger.js";
import { startWorker, type Worker } from "../../server/worker.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { countSnoozes, snoozesOf } from "../helpers/snoozes.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

const server = useTestServer({ ...fastWorkerConfig });
const workers: Worker[] = [];
let account: TestAccount;
const US = ["+14155550161", "+14155550162", "+14155550163"];
const UK = "+447400123460";

interface Message {
  status: string;
  from: string;
  senderPoolId: string | null;
  error: { code: string } | null;
}

const pool = async (body: Record<string, unknown>, who = account) => {
  const res = await who.request("POST", "/api/v1/sender-pools", body);
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { senderPoolId: string }).senderPoolId;
};
const send = async (body: Record<string, unknown>) => {
  const res = await account.request("POST", "/api/v1/messages", { body: "hello", ...body });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { messageId: string }).messageId;
};
const message = async (id: string) => (await (await account.request("GET", `/api/v1/messages/${id}`)).json()) as Message;
/** Sends `n` messages of the pool in one batch; returns their ids. */
const batch = async (n: number, senderPoolId: string) => {
  const res = await account.request("POST", "/api/v1/messages/batch", {
    messages: Array.from({ length: n }, (_, i) => ({ to: `+1415555${String(3000 + i).padStart(4, "0")}`, body: "turns", senderPoolId })),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: { messageId: string }[] }).results.map((r) => r.messageId);
};
/** The messages' writes to the simulator, in time order (seconds since the epoch). */
const submissions = async (ids: string[]) =>
  (
    await server().db.raw(
      `SELECT m.sender, EXTRACT(EPOCH FROM s.submitted_at)::float8 AS at
         FROM simulator_submissions s JOIN messages m ON m.id = s.message_id WHERE m.id = ANY(?::uuid[]) ORDER BY at`,
      [ids],
    )
  ).rows as { sender: string; at: number }[];
const settled = (id: string) =>
  waitUntil(`message ${id} sent or failed`, async () => {
    const m = await message(id);
    return ["sent", "delivered", "failed"].includes(m.status) ? m : undefined;
  });

beforeAll(async () => {
  const s = server();
  for (let i = 0; i < 2; i++)
    workers.push(
      await startWorker({ db: s.db, databaseUrl: s.url, log: createLogger(process.env.TEST_LOG_LEVEL ?? "silent"), config: s.config }),
    );
  account = await s.account();
  for (const n of [...US, UK]) await account.holds(n);
});
afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop(2_000)));
});

describe("sender pools", () => {
  it("take numbers the account holds, once per name; a message names exactly one of from and senderPoolId", async () => {
    const unheld = await account.request("POST", "/api/v1/sender-pools", { name: "x", senders: ["+14155550169"] });
    expect(unheld.status).toBe(422);
    expect(((await unheld.json()) as { code: string }).code).toBe("sender_not_allowed");
    const id = await pool({ name: "rules", senders: [US[0]] });
    const again = await account.request("POST", "/api/v1/sender-pools", { name: "rules", senders: [US[1]] });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { code: string }).code).toBe("sender_pool_exists");
    const both = await account.request("POST", "/api/v1/messages", { to: "+14155550170", body: "x", from: "ACME", senderPoolId: id });
    expect(both.status).toBe(400);
    const neither = await account.request("POST", "/api/v1/messages", { to: "+14155550170", body: "x" });
    expect(neither.status).toBe(400);
    const other = await server().account();
    const foreign = await other.request("POST", "/api/v1/messages", { to: "+14155550170", body: "x", senderPoolId: id });
    expect(foreign.status).toBe(422);
    expect(((await foreign.json()) as { code: string }).code).toBe("sender_pool_not_found");
    const patched = await account.request("PATCH", `/api/v1/sender-pools/${id}`, { sticky: false });
    expect(await patched.json()).toMatchObject({ senderPoolId: id, name: "rules", senders: [US[0]], sticky: false });
  });

  it("choose the recipient's last sender (sticky), else one of its country, else the least recently used", async () => {
    const id = await pool({ name: "choice", senders: [...US, UK] });
    // Sticky: the recipient got US[2] from this account before.
    await settled(await send({ to: "+14155550171", from: US[2] }));
    expect((await settled(await send({ to: "+14155550171", senderPoolId: id }))).from).toBe(US[2]);
    // The recipient's country: a UK number gets the UK sender.
    expect((await settled(await send({ to: "+447400123461", senderPoolId: id }))).from).toBe(UK);
    // Least recently used: three new US recipients one after another get the three US senders.
    const froms: string[] = [];
    for (let i = 0; i < 3; i++) froms.push((await settled(await send({ to: `+1415555018${i}`, senderPoolId: id }))).from);
    expect(new Set(froms)).toEqual(new Set(US));
    const m = await message(await send({ to: "+14155550171", senderPoolId: id }));
    expect(m.senderPoolId).toBe(id);
  });

  it("hold a cap of one message a second per sender across two workers", { timeout: 60_000 }, async () => {
    const id = await pool({ name: "capped", senders: US.slice(0, 2), sticky: false, maxMessagesPerSecondPerSender: 1 });
    const res = await account.request("POST", "/api/v1/messages/batch", {
      messages: Array.from({ length: 10 }, (_, i) => ({ to: `+1415555019${i}`, body: "capped", senderPoolId: id })),
    });
    expect(res.status).toBe(200);
    const ids = ((await res.json()) as { results: { messageId: string }[] }).results.map((r) => r.messageId);
    expect(ids).toHaveLength(10);
    await waitUntil("all sent", async () => (await Promise.all(ids.map(message))).every((m) => m.status !== "scheduled"), 30_000);
    const { rows } = await server().db.raw(
      `SELECT m.sender, EXTRACT(EPOCH FROM s.submitted_at)::float8 AS at
         FROM simulator_submissions s JOIN messages m ON m.id = s.message_id WHERE m.id = ANY(?::uuid[]) ORDER BY at`,
      [ids],
    );
    const bySender = new Map<string, number[]>();
    for (const r of rows as { sender: string; at: number }[]) bySender.set(r.sender, [...(bySender.get(r.sender) ?? []), r.at]);
    expect([...bySender.keys()].sort()).toEqual(US.slice(0, 2));
    expect([...bySender.values()].reduce((n, t) => n + t.length, 0)).toBe(10);
    // Slots are exactly 1 s apart and no write goes before its slot; a write may be late by its claim and submit
    // (tens of ms; up to half a second allowed on a loaded machine), so two writes of one sender are at least
    // 1 s less the lateness of the first apart, and a sender's n writes take at least n − 1 seconds less that.
    for (const times of bySender.values()) {
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThan(0.5);
      expect(times.at(-1)! - times[0]!).toBeGreaterThan(times.length - 1 - 0.5);
    }
  });

  it("wake each message waiting for a capped sender for its own turn, not all at once", { timeout: 60_000 }, async () => {
    const db = server().db;
    await countSnoozes(db);
    const sender = "+14155550164";
    await account.holds(sender);
    const id = await pool({ name: "turns", senders: [sender], sticky: false, maxMessagesPerSecondPerSender: 10 });
    const ids = await batch(40, id);
    await waitUntil("all sent", async () => (await Promise.all(ids.map(message))).every((m) => m.status !== "scheduled"), 30_000);
    const times = (await submissions(ids)).map((r) => r.at);
    expect(times).toHaveLength(40);
    // 10 a second: 40 writes take at least 3.9 s, less the lateness of the first (up to half a second allowed).
    expect(times.at(-1)! - times[0]!).toBeGreaterThan(3.4);
    // Each waiting message is given a turn of its own (db/capTurns.ts) and comes back for it:
    // snoozed about once. Woken at the sender's tat instead, a window refused together came back together and
    // all but one of it were refused again (about a dozen snoozes a message here).
    expect((await snoozesOf(db, ids)) / ids.length).toBeLessThan(3);
  });

  it("a pool's cap raised applies at once to the messages already waiting for their turns", { timeout: 60_000 }, async () => {
    const sender = "+14155550165";
    await account.holds(sender);
    const id = await pool({ name: "raised", senders: [sender], sticky: false, maxMessagesPerSecondPerSender: 1 });
    const ids = await batch(20, id);
    // At one a second the last of them has a turn about 20 s ahead.
    await waitUntil("the first two sent", async () => (await submissions(ids)).length >= 2);
    const res = await account.request("PATCH", `/api/v1/sender-pools/${id}`, { maxMessagesPerSecondPerSender: null });
    expect(res.status, await res.clone().text()).toBe(200);
    await waitUntil("all sent", async () => (await submissions(ids)).length === 20, 10_000);
  });

  it("a pool deleted under waiting messages fails them sender_pool_deleted; a campaign takes senders from a pool", async () => {
    const doomed = await pool({ name: "doomed", senders: [US[0]] });
    const later = new Date(Date.now() + 1_500).toISOString();
    const id = await send({ to: "+14155550199", senderPoolId: doomed, scheduledAt: later });
    expect((await account.request("DELETE", `/api/v1/sender-pools/${doomed}`)).status).toBe(204);
    expect(await settled(id)).toMatchObject({ status: "failed", from: "", error: { code: "sender_pool_deleted" } });

    const campaignPool = await pool({ name: "campaign", senders: US, sticky: false });
    const { data: campaign, response } = await account.client.POST("/api/v1/campaigns", {
      body: { name: "pooled", message: "hi", type: "instant", recipients: ["+14155550201", "+14155550202"], senderPoolId: campaignPool },
    });
    expect(response.status).toBe(201);
    expect(campaign).toMatchObject({ from: "", senderPoolId: campaignPool });
    const rows = await waitUntil("the campaign's messages sent", async () => {
      const ms = await server().db("messages").where({ campaign_id: campaign!.campaignId }).select("sender", "status", "sender_pool_id");
      return ms.length === 2 && ms.every((m) => m.status !== "scheduled" && m.status !== "sending") ? ms : undefined;
    });
    for (const m of rows) {
      expect(US).toContain(m.sender);
      expect(m.sender_pool_id).toBe(campaignPool);
    }
  });
});
