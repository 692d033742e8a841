import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../server/logger.js";
import { receiveInboundMessage } from "../../server/services/inbound.js";
import { addCarrierConnector, inHours, problemOf, useTestServer, type TestAccount } from "../helpers/server.js";

const lines: string[] = [];
const sink = new Writable({
  write(chunk, _enc, done) {
    lines.push(chunk.toString());
    done();
  },
});
const server = useTestServer({}, { log: createLogger("info", sink) });
const withSmpp = useTestServer({ provider: "smpp" });
const carrierLater = useTestServer({});

async function ownNumber(a: TestAccount, phoneNumber: string) {
  expect((await a.request("POST", "/api/v1/numbers", { phoneNumber })).status).toBe(201);
}

async function inbound(a: TestAccount, body: { from: string; to: string; body: string }) {
  const res = await a.request("POST", "/api/v1/simulator/inbound", body);
  expect(res.status).toBe(202);
  return ((await res.json()) as { messageId: string }).messageId;
}

async function unroutedCount(): Promise<number> {
  const text = await (await fetch(`${server().baseUrl}/metrics`)).text();
  return Number(/^sms_inbound_unrouted_total (\d+)/m.exec(text)?.[1] ?? 0);
}

describe("inbound messages through the simulator", () => {
  it("stores an inbound message with the contract's shape and answers 202 with its id", async () => {
    const a = await server().account();
    await ownNumber(a, "+14155550200");
    const messageId = await inbound(a, { from: "+1 415 555 0201", to: "+14155550200", body: "Is my order ready?" });
    const res = await a.request("GET", `/api/v1/messages/${messageId}`);
    const m = (await res.json()) as Record<string, unknown>;
    expect(m).toEqual({
      messageId,
      direction: "inbound",
      from: "+14155550201",
      to: "+14155550200",
      body: "Is my order ready?",
      status: "received",
      receivedAt: expect.any(String),
      segments: 1,
      encoding: "GSM-7",
      incomplete: false,
      history: [{ status: "received", at: m.receivedAt }],
    });
  });

  it("answers 422 number_not_found for a number the caller does not own, also one another account owns", async () => {
    const a = await server().account();
    const b = await server().account();
    await ownNumber(b, "+14155550202");
    for (const to of ["+14155550202", "+14155550203"]) {
      const res = await a.request("POST", "/api/v1/simulator/inbound", { from: "+14155550204", to, body: "hi" });
      expect(res.status, to).toBe(422);
      expect((await problemOf(res)).code).toBe("number_not_found");
    }
    expect((await b.client.GET("/api/v1/messages")).data!.data).toEqual([]);
    expect((await a.request("POST", "/api/v1/simulator/inbound", { from: "+14155550204", to: "+14155550202" })).status).toBe(400);
  });

  it("lists both directions newest first; direction= and phone= (a conversation) filter", async () => {
    const a = await server().account();
    await ownNumber(a, "+14155550210");
    const { data: out1 } = await a.client.POST("/api/v1/scheduler/schedule", {
      body: { to: "+14155550211", body: "Your table is ready", from: "+14155550210", scheduledAt: inHours(1) },
    });
    const in1 = await inbound(a, { from: "+14155550211", to: "+14155550210", body: "Thanks!" });
    const in2 = await inbound(a, { from: "+14155550212", to: "+14155550210", body: "Who is this?" });
    const { data: out2 } = await a.client.POST("/api/v1/scheduler/schedule", {
      body: { to: "+14155550212", body: "ACME restaurant", from: "+14155550210", scheduledAt: inHours(1) },
    });

    const ids = async (query: Record<string, string>) => {
      const qs = Object.entries(query).map(([k, v]) => `${k}=${encodeURIComponent(v)}`);
      const res = await a.request("GET", `/api/v1/messages?${qs.join("&")}`);
      expect(res.status, `${JSON.stringify(query)}: ${res.status === 200 ? "" : await res.text()}`).toBe(200);
      return ((await res.json()) as { data: { messageId: string; direction: string }[] }).data.map((m) => m.messageId);
    };
    expect(await ids({})).toEqual([out2!.messageId, in2, in1, out1!.messageId]);
    expect(await ids({ direction: "inbound" })).toEqual([in2, in1]);
    expect(await ids({ direction: "outbound" })).toEqual([out2!.messageId, out1!.messageId]);
    expect(await ids({ phone: "+14155550211" })).toEqual([in1, out1!.messageId]);
    expect(await ids({ phone: "+1 415 555 0212", direction: "inbound" })).toEqual([in2]);
    expect(await ids({ status: "received" })).toEqual([in2, in1]);
    const { data: outbound } = await a.client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId: out1!.messageId } } });
    expect(outbound!.direction).toBe("outbound");
    expect((await a.request("GET", "/api/v1/messages?phone=nope")).status).toBe(400);
    expect((await a.request("GET", "/api/v1/messages?direction=sideways")).status).toBe(400);
  });

  it("an inbound message to a number nobody owns is acknowledged, logged without its body, counted, not stored", async () => {
    const before = await unroutedCount();
    const lineCount = lines.length;
    const result = await receiveInboundMessage(
      server().db,
      createLogger("info", sink),
      {
        from: "+14155550220",
        to: "+14155550221",
        body: "secret words 5519",
        receivedAt: new Date(),
      },
      { autoReplyMaxPerHour: 100 },
    );
    expect(result).toBeUndefined();
    expect(await unroutedCount()).toBe(before + 1);
    const logged = lines.slice(lineCount).join("");
    expect(logged).toContain("+14155550221");
    expect(logged).not.toContain("secret words 5519");
    // The sender's number is masked to its last three digits.
    expect(logged).not.toContain("14155550220");
    expect(logged).toContain("220");
    const stored = await server().db("messages").where({ direction: "inbound", recipient: "+14155550221" });
    expect(stored).toEqual([]);
  });

  it("a keyword from a national-format sender (a link without a default country) is counted and the operator warned", async () => {
    const a = await server().account();
    await ownNumber(a, "+14155550230");
    const metric = async () =>
      Number(
        /^sms_inbound_keywords_unlisted_total\{kind="opt_out"\} (\d+)/m.exec(
          await (await fetch(`${server().baseUrl}/metrics`)).text(),
        )?.[1] ?? 0,
      );
    const before = await metric();
    const lineCount = lines.length;
    const received = await receiveInboundMessage(
      server().db,
      createLogger("info", sink),
      { from: "07911123457", to: "+14155550230", body: "STOP", receivedAt: new Date() },
      { autoReplyMaxPerHour: 100 },
    );
    expect(received).toMatchObject({ accountId: a.accountId });
    expect(await metric()).toBe(before + 1);
    const logged = lines.slice(lineCount).join("");
    expect(logged).toContain("national-format number could not be applied");
    expect(logged).not.toContain("07911123457");
    // Stored as sent, listed nowhere (there is no number to list).
    expect((await (await a.request("GET", "/api/v1/opt-outs")).json()) as { data: unknown[] }).toMatchObject({ data: [] });
  });

  it("is 409 simulator_unavailable, naming the carrier, unless the server runs the simulator alone", async () => {
    await addCarrierConnector(await withSmpp().operator());
    const a = await withSmpp().account();
    await a.holds("+14155550230");
    const res = await a.request("POST", "/api/v1/simulator/inbound", { from: "+14155550231", to: "+14155550230", body: "hi" });
    expect(res.status).toBe(409);
    const problem = await problemOf(res);
    expect(problem.code).toBe("simulator_unavailable");
    expect(problem.detail).toMatch(/leads to a carrier \(.+\)/);
  });

  it("exists only while nothing leads to a carrier: a carrier added beside the simulator, or named by a route, ends it", async () => {
    const { db } = carrierLater();
    const op = await carrierLater().operator();
    const a = await carrierLater().account();
    await db("accounts").where({ id: a.accountId }).update({ first_start: true }); // as the first-start `default`
    await ownNumber(a, "+14155550240");
    const send = () => a.request("POST", "/api/v1/simulator/inbound", { from: "+14155550241", to: "+14155550240", body: "HELP" });
    expect((await send()).status).toBe(202);

    // An enabled carrier beside the simulator's `default`: a forged HELP would make the real SMSC answer.
    const carrier = await addCarrierConnector(op);
    const refused = await send();
    expect(refused.status).toBe(409);
    expect((await problemOf(refused)).code).toBe("simulator_unavailable");
    // Nor may the first-start account claim a free number any more.
    const claim = await a.request("POST", "/api/v1/numbers", { phoneNumber: "+14155550242" });
    expect(claim.status).toBe(403);
    expect((await problemOf(claim)).code).toBe("self_service_disabled");

    // Disabled and named by no route: nothing leads to it.
    expect((await op.request("PATCH", `/api/v1/connectors/${carrier}`, { enabled: false })).status).toBe(200);
    expect((await send()).status).toBe(202);
    // A route naming it leads to it again (it may be enabled at any time).
    const table = (await (await op.request("GET", "/api/v1/routes")).json()) as { version: number; routes: object[] };
    const put = await op.request("PUT", "/api/v1/routes", {
      version: table.version,
      routes: [
        ...table.routes,
        { name: "to-carrier", match: { prefixes: ["+44"] }, connectors: [{ connectorId: carrier, weight: 1 }], fallback: [] },
      ],
    });
    expect(put.status, await put.clone().text()).toBe(200);
    expect((await send()).status).toBe(409);
  });
});
