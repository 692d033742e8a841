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
