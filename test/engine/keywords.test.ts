// STOP / START / HELP through the simulator's inbound path, with a real worker sending the replies.
import { describe, expect, it } from "vitest";
import type { components } from "../../generated/api.js";
import { countSubmissionsByMessage } from "../../server/db/simulatorSubmissions.js";
import { inHours, problemOf, useTestServer, type TestAccount } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

type OutboundMessage = components["schemas"]["OutboundMessage"];
const server = useTestServer(fastWorkerConfig);
useTestWorker(server);

async function setUp(number: string): Promise<TestAccount> {
  const a = await server().account();
  expect((await a.request("POST", "/api/v1/numbers", { phoneNumber: number })).status).toBe(201);
  return a;
}

async function send(a: TestAccount, from: string, to: string, body: string) {
  const res = await a.request("POST", "/api/v1/simulator/inbound", { from, to, body });
  expect(res.status).toBe(202);
  return ((await res.json()) as { messageId: string }).messageId;
}

const outbound = async (a: TestAccount) => {
  const { data } = await a.client.GET("/api/v1/messages", { params: { query: { direction: "outbound" } } });
  return data!.data as OutboundMessage[];
};

describe("keywords", () => {
  it("STOP opts the sender out, and the confirmation from the receiving number reaches it past the list", async () => {
    const a = await setUp("+14155550300");
    const inboundId = await send(a, "+14155550301", "+14155550300", " stop! ");
    const { data: entry } = await a.client.GET("/api/v1/opt-outs/{phone}", { params: { path: { phone: "+14155550301" } } });
    expect(entry).toMatchObject({ phone: "+14155550301", source: "keyword", keyword: "STOP" });
    const [reply] = await outbound(a);
    expect(reply).toMatchObject({
      to: "+14155550301",
      from: "+14155550300",
      body: "You have been unsubscribed and will receive no more messages. Reply START to resubscribe.",
    });
    const delivered = await waitUntil("the confirmation delivered", async () => {
      const { data } = await a.client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId: reply!.messageId } } });
      return data!.status === "delivered" && data;
    });
    expect(delivered).toBeDefined();
    expect((await countSubmissionsByMessage(server().db)).get(reply!.messageId)).toBe(1);
    // The keyword message itself is an ordinary inbound message too.
    const { data: keywordMessage } = await a.client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId: inboundId } } });
    expect(keywordMessage).toMatchObject({ direction: "inbound", body: " stop! " });
    // And the list holds for everything else.
    const blocked = await a.request("POST", "/api/v1/scheduler/schedule", {
      to: "+14155550301",
      body: "promo",
      from: "ACME",
      scheduledAt: inHours(1),
    });
    expect((await problemOf(blocked)).code).toBe("recipient_opted_out");
  });

  it("START from an opted-out number removes it and confirms; from any other number it does nothing", async () => {
    const a = await setUp("+14155550310");
    await send(a, "+14155550311", "+14155550310", "UNSUBSCRIBE");
    await send(a, "+14155550311", "+14155550310", "Start.");
    expect((await a.request("GET", "/api/v1/opt-outs/14155550311")).status).toBe(404);
    expect((await outbound(a)).map((m) => m.body)).toEqual([
      "You have been resubscribed. Reply STOP to unsubscribe.",
      "You have been unsubscribed and will receive no more messages. Reply START to resubscribe.",
    ]);
    await send(a, "+14155550312", "+14155550310", "yes");
    expect((await outbound(a)).filter((m) => m.to === "+14155550312")).toEqual([]);
  });

  it("HELP answers with the help text; a sentence containing stop is an ordinary message", async () => {
    const a = await setUp("+14155550320");
    await send(a, "+14155550321", "+14155550320", "help");
    await send(a, "+14155550321", "+14155550320", "please stop sending me these");
    expect((await outbound(a)).map((m) => m.body)).toEqual(["Reply STOP to unsubscribe. Msg & data rates may apply."]);
    expect((await a.request("GET", "/api/v1/opt-outs/14155550321")).status).toBe(404);
  });

  it("at most one auto-reply of each kind per number per 60 s, so two auto-responders cannot loop", async () => {
    const a = await setUp("+14155550330");
    for (let i = 0; i < 3; i++) await send(a, "+14155550331", "+14155550330", "HELP");
    await send(a, "+14155550331", "+14155550330", "STOP");
    await send(a, "+14155550331", "+14155550330", "STOP");
    const bodies = (await outbound(a)).map((m) => m.body);
    expect(bodies.filter((b) => b.startsWith("Reply STOP"))).toHaveLength(1);
    expect(bodies.filter((b) => b.startsWith("You have been unsubscribed"))).toHaveLength(1);
    // Another number gets its own.
    await send(a, "+14155550332", "+14155550330", "HELP");
    expect((await outbound(a)).filter((m) => m.to === "+14155550332")).toHaveLength(1);
  });

  it("a null reply text in the settings sends no reply, the list still changes", async () => {
    const a = await setUp("+14155550340");
    expect((await a.request("PATCH", "/api/v1/account/settings", { optOutReply: null, helpReply: "Custom help." })).status).toBe(200);
    await send(a, "+14155550341", "+14155550340", "quit");
    await send(a, "+14155550341", "+14155550340", "info");
    expect((await a.request("GET", "/api/v1/opt-outs/14155550341")).status).toBe(200);
    expect((await outbound(a)).map((m) => m.body)).toEqual(["Custom help."]);
  });
});

// Guards against SMS pumping (toll fraud): replies are what an attacker makes the account pay for.
describe("automatic replies guarded against SMS pumping", () => {
  /** Lets the per-kind interval pass without waiting for it: the last reply of each kind to `phone` moves back. */
  const backdate = (phone: string, seconds: number) =>
    server()
      .db("auto_replies")
      .where({ phone })
      .update({ last_sent_at: server().db.raw("now() - make_interval(secs => ?)", [seconds]) });
  const repliesTo = async (a: TestAccount, phone: string) => (await outbound(a)).filter((m) => m.to === phone).map((m) => m.body);

  it("a STOP from a number already opted out sends nothing, however long after the first", async () => {
    const a = await setUp("+14155550350");
    await send(a, "+14155550351", "+14155550350", "STOP");
    await backdate("+14155550351", 3600);
    await send(a, "+14155550351", "+14155550350", "STOP");
    expect(await repliesTo(a, "+14155550351")).toHaveLength(1);
  });

  it("HELP is answered once a day per number; STOP and START every minute, up to five replies a number a day", async () => {
    const a = await setUp("+14155550360");
    const phone = "+14155550361";
    await send(a, phone, "+14155550360", "HELP");
    await backdate(phone, 3600);
    await send(a, phone, "+14155550360", "HELP");
    expect(await repliesTo(a, phone)).toHaveLength(1);
    // STOP, START, STOP, START, STOP, START: each changes the list; the minute passes between them.
    for (const word of ["STOP", "START", "STOP", "START", "STOP", "START"]) {
      await send(a, phone, "+14155550360", word);
      await backdate(phone, 120);
    }
    expect(await repliesTo(a, phone)).toHaveLength(5); // the HELP and four of the six, then the day's cap
  });

  it("an account sends at most AUTO_REPLY_MAX_PER_HOUR replies an hour, whatever the numbers", async () => {
    // 98 of the default 100 already sent this hour: two more numbers get theirs, the third none.
    const a = await setUp("+14155550370");
    await server().db.raw(
      `INSERT INTO auto_reply_counts (account_id, phone, window_start, sent) VALUES (?, '', date_trunc('hour', now()), 98)`,
      [a.accountId],
    );
    for (const n of ["+14155550371", "+14155550372", "+14155550373"]) await send(a, n, "+14155550370", "HELP");
    expect((await outbound(a)).map((m) => m.to).sort()).toEqual(["+14155550371", "+14155550372"]);
  });

  it("never replies to a premium-rate or shared-cost number (the list still changes)", async () => {
    const a = await setUp("+14155550380");
    for (const premium of ["+19002345678", "+448712345678"]) {
      await send(a, premium, "+14155550380", "STOP");
      expect((await a.request("GET", `/api/v1/opt-outs/${encodeURIComponent(premium)}`)).status).toBe(200);
      await send(a, premium, "+14155550380", "HELP");
    }
    expect(await outbound(a)).toEqual([]);
  });

  it("refuses a reply text longer than two segments with 422 reply_too_long", async () => {
    const a = await setUp("+14155550390");
    const res = await a.request("PATCH", "/api/v1/account/settings", { helpReply: "👋".repeat(68), optInReply: "x".repeat(306) });
    expect(res.status).toBe(422);
    expect(await problemOf(res)).toMatchObject({
      code: "reply_too_long",
      errors: [{ path: "/body/helpReply", message: "is longer than 2 segments" }],
    });
    expect((await a.request("PATCH", "/api/v1/account/settings", { helpReply: "x".repeat(306) })).status).toBe(200);
  });
});
