// PROVIDER=smpp against an SMSC started here on 127.0.0.1 (the smpp package's server): no mocks of our code.
import type { components } from "../../generated/api.js";
import type { PDU } from "smpp";
import { describe, expect, it } from "vitest";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createApp } from "../../server/http/app.js";
import { createLogger } from "../../server/logger.js";
import type { SmppProvider } from "../../server/providers/smpp/provider.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { useSmppWorker } from "../helpers/smsc.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

// An unknown outcome (the link dropped with submits in flight) waits this long for a receipt, then fails.
const RESOLVE_MS = 10_000;
const server = useTestServer({
  ...fastWorkerConfig,
  provider: "smpp",
  smppMaxInFlight: 3,
  smppMaxPerSecond: 200,
  smppThrottlePauseMs: 50,
  sendOutcomeResolveMs: RESOLVE_MS,
});
const { smsc, worker, stop } = useSmppWorker(server);

async function send(a: TestAccount, body: string, to = "+14155550123", from = "ACME") {
  const { data, error } = await a.client.POST("/api/v1/messages", {
    body: { to, body, from },
  });
  if (!data) throw new Error(`schedule failed: ${JSON.stringify(error)}`);
  return data.messageId;
}

const message = async (a: TestAccount, id: string) =>
  (await a.client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId: id } } }))
    .data! as components["schemas"]["OutboundMessage"];
const inStatus = (a: TestAccount, id: string, status: string) =>
  waitUntil(`message ${id} ${status}`, async () => {
    const m = await message(a, id);
    return m.status === status && m;
  });
const submitsTo = (number: string) => smsc().submits.filter((p) => p.destination_addr === number);
const udhOf = (pdu: PDU) => (pdu.short_message as { udh?: Buffer[] }).udh?.[0];
const textOf = (pdu: PDU) => (pdu.short_message as { message: string }).message;

describe("SMPP provider", () => {
  it("binds as transceiver with the URL's credentials and submits GSM-7 with a receipt requested", async () => {
    expect(smsc().binds[0]).toMatchObject({ command: "bind_transceiver", system_id: "test", password: "secret" });
    const a = await server().account();
    const id = await send(a, "Hello {world} €", "+14155550131");
    const sent = await inStatus(a, id, "sent");
    const [pdu] = submitsTo("14155550131");
    expect(pdu).toMatchObject({
      data_coding: 0,
      registered_delivery: 1,
      source_addr: "ACME",
      source_addr_ton: 5,
      dest_addr_ton: 1,
      esm_class: 0,
    });
    expect(textOf(pdu!)).toBe("Hello {world} €");
    expect(sent.providerMessageId).toBe(smsc().idOf(pdu!));
    await smsc().receipt(sent.providerMessageId!, "DELIVRD");
    const delivered = await inStatus(a, id, "delivered");
    expect(delivered.history.map((h) => h.status)).toEqual(["scheduled", "sent", "delivered"]);
  });

  it("sends UCS-2 with data_coding 8", async () => {
    const a = await server().account();
    const id = await send(a, "Привет 👋", "+14155550132");
    await inStatus(a, id, "sent");
    const [pdu] = submitsTo("14155550132");
    expect(pdu!.data_coding).toBe(8);
    expect(textOf(pdu!)).toBe("Привет 👋");
  });

  it("splits a 3-segment message with a concatenation UDH, reports 3 segments, and is delivered when all are", async () => {
    const a = await server().account();
    const text = "abcdefghij".repeat(40); // 400 GSM-7 characters: 153 + 153 + 94
    const id = await send(a, text, "+14155550133");
    const sent = await inStatus(a, id, "sent");
    expect(sent.segments).toBe(3);
    const pdus = submitsTo("14155550133");
    expect(pdus).toHaveLength(3);
    const udhs = pdus.map((p) => udhOf(p)!);
    for (const [i, udh] of udhs.entries()) {
      expect([...udh.subarray(0, 2)]).toEqual([0x00, 0x03]);
      expect(udh[2]).toBe(udhs[0]![2]); // one reference for all parts
      expect([udh[3], udh[4]]).toEqual([3, i + 1]);
      expect((pdus[i]!.esm_class as number) & 0x40).toBe(0x40);
    }
    expect(pdus.map(textOf).join("")).toBe(text);
    await smsc().receipt(smsc().idOf(pdus[0]!), "DELIVRD");
    await smsc().receipt(smsc().idOf(pdus[1]!), "DELIVRD");
    // Still sent until the last segment is confirmed.
    expect((await message(a, id)).status).toBe("sent");
    await smsc().receipt(smsc().idOf(pdus[2]!), "DELIVRD", { tlv: true });
    await inStatus(a, id, "delivered");
  });

  it("a multipart message whose second segment fails is undelivered", async () => {
    const a = await server().account();
    const id = await send(a, "x".repeat(200), "+14155550134");
    await inStatus(a, id, "sent");
    const pdus = submitsTo("14155550134");
    await smsc().receipt(smsc().idOf(pdus[1]!), "UNDELIV", { err: "001" });
    const m = await inStatus(a, id, "undelivered");
    expect(m.error).toMatchObject({ code: "SMPP_UNDELIV" });
    await smsc().receipt(smsc().idOf(pdus[0]!), "DELIVRD");
    expect((await message(a, id)).status).toBe("undelivered");
  });

  it("maps REJECTD to failed and a refused submit to failed with the SMPP error code", async () => {
    const a = await server().account();
    const id = await send(a, "rejected later", "+14155550135");
    const sent = await inStatus(a, id, "sent");
    await smsc().receipt(sent.providerMessageId!, "REJECTD");
    await inStatus(a, id, "failed");
    smsc().answer = (pdu) => (pdu.destination_addr === "14155550136" ? 0x0b : 0); // ESME_RINVDSTADR
    const refused = await send(a, "bad number", "+14155550136");
    const m = await inStatus(a, refused, "failed");
    expect(m.error).toMatchObject({ code: "ESME_RINVDSTADR" });
    smsc().answer = () => 0;
  });

  it("on ESME_RTHROTTLED the message is submitted again after a pause and sent, not failed (test/smpp/throttling.test.ts has more)", async () => {
    const a = await server().account();
    let throttled = 0;
    smsc().answer = (pdu) => (pdu.destination_addr === "14155550137" && throttled++ < 2 ? 0x58 : 0);
    const id = await send(a, "slow down", "+14155550137");
    const m = await inStatus(a, id, "sent");
    expect(m.history.map((h) => h.status)).toEqual(["scheduled", "sent"]);
    expect(submitsTo("14155550137")).toHaveLength(3);
    smsc().answer = () => 0;
  });

  it("never has more than SMPP_MAX_IN_FLIGHT submits unanswered", async () => {
    const a = await server().account();
    smsc().maxUnanswered = 0;
    smsc().answer = () => "hold";
    const ids = await Promise.all(Array.from({ length: 8 }, (_v, i) => send(a, `window ${i}`, `+1415555014${i}`)));
    await waitUntil("window full", async () => smsc().maxUnanswered >= 3);
    // Release in rounds; the window refills but never goes past 3.
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 100));
      smsc().releaseHeld();
    }
    smsc().answer = () => 0;
    smsc().releaseHeld();
    for (const id of ids) await inStatus(a, id, "sent");
    expect(smsc().maxUnanswered).toBe(3);
  });

  it("does not lose a receipt that arrives before the submit_sm_resp is recorded", async () => {
    const a = await server().account();
    // The SMSC sends the receipt in the same breath as the submit_sm_resp.
    smsc().afterAnswer = (id) => void smsc().receipt(id, "DELIVRD");
    const id = await send(a, "fast carrier", "+14155550139");
    const m = await inStatus(a, id, "delivered");
    expect(m.history.map((h) => h.status)).toEqual(["scheduled", "sent", "delivered"]);
    smsc().afterAnswer = undefined;
  });

  it("records a second submit answered with an id seen before; a receipt goes to the most recent message with it", async () => {
    const a = await server().account();
    smsc().messageIdFor = (pdu) => (["14155550144", "14155550145"].includes(pdu.destination_addr as string) ? "reused-id-1" : undefined);
    try {
      const first = await send(a, "first", "+14155550144");
      expect((await inStatus(a, first, "sent")).providerMessageId).toBe("reused-id-1");
      const second = await send(a, "second", "+14155550145");
      expect((await inStatus(a, second, "sent")).providerMessageId).toBe("reused-id-1");
      await smsc().receipt("reused-id-1", "DELIVRD");
      await inStatus(a, second, "delivered");
      expect((await message(a, first)).status).toBe("sent");
    } finally {
      smsc().messageIdFor = undefined;
    }
  });

  it("acknowledges a receipt for an unknown id without an error loop", async () => {
    const resp = await smsc().receipt("no-such-id", "DELIVRD");
    expect(resp.command_status).toBe(0);
  });

  it("when the SMSC drops the connection mid-stream: in-flight messages fail as unknown, queued ones go out after the reconnect, none twice", async () => {
    const a = await server().account();
    const connection = (worker().provider as SmppProvider).connection;
    smsc().answer = () => "hold";
    const numbers = Array.from({ length: 5 }, (_v, i) => `+1415555018${i}`);
    const ids = await Promise.all(numbers.map((n, i) => send(a, `mid-stream ${i}`, n)));
    await waitUntil("window full of unanswered submits", async () => numbers.filter((n) => submitsTo(n.slice(1)).length > 0).length === 3);
    smsc().answer = () => 0;
    for (const s of smsc().sessions()) s.close();
    await waitUntil("bound again", async () => connection.state === "bound", 10_000);
    const final = await waitUntil("all settled", async () => {
      const all = await Promise.all(ids.map((id) => message(a, id)));
      return all.every((m) => m.status !== "scheduled") && all;
    });
    const failed = final.filter((m) => m.status === "failed");
    expect(failed).toHaveLength(3);
    for (const m of failed) expect(m.error?.code).toBe("send_outcome_unknown");
    expect(final.filter((m) => m.status === "sent")).toHaveLength(2);
    for (const n of numbers) expect(submitsTo(n.slice(1)).length).toBe(1);
  });

  it("after a drop mid-stream, the SMSC's later receipts resolve the unknown outcomes: sent with their ids, then delivered", async () => {
    const a = await server().account();
    smsc().answer = () => "hold";
    const numbers = Array.from({ length: 3 }, (_v, i) => `+1415555019${i}`);
    const ids = await Promise.all(numbers.map((n, i) => send(a, `resolved later ${i}`, n)));
    await waitUntil("window full of unanswered submits", async () => numbers.every((n) => submitsTo(n.slice(1)).length === 1));
    smsc().answer = () => 0;
    for (const s of smsc().sessions()) s.close();
    await waitUntil("outcomes declared unknown", async () =>
      Number((await server().db("messages").whereIn("id", ids).whereNotNull("outcome_unknown_at").count({ n: "*" }))[0]!.n) === 3
        ? true
        : undefined,
    );
    const connection = (worker().provider as SmppProvider).connection;
    await waitUntil("bound again", async () => connection.state === "bound", 10_000);
    const minute = new Date().toISOString().replace(/^\d\d(\d\d)-(\d\d)-(\d\d)T(\d\d):(\d\d).*$/, "$1$2$3$4$5");
    for (const [i, n] of numbers.entries()) {
      await smsc().receipt(`late-${i}`, "DELIVRD", { source: n.slice(1), submitDate: minute, text: `resolved later ${i}`.slice(0, 12) });
    }
    for (const [i, id] of ids.entries()) {
      const m = await waitUntil(
        `message ${i} delivered`,
        async () => ((m) => m.status === "delivered" && m)(await message(a, id)),
        RESOLVE_MS,
      );
      expect(m.providerMessageId).toBe(`late-${i}`);
      expect(m.history.map((h) => h.status)).toEqual(["scheduled", "sent", "delivered"]);
    }
    for (const n of numbers) expect(submitsTo(n.slice(1))).toHaveLength(1);
  });

  it("reports the bind on /metrics; /readyz stays about the process", async () => {
    const connection = (worker().provider as SmppProvider).connection;
    const app = createApp({ db: server().db, log: createLogger("silent"), config: server().config, now: () => new Date() });
    const listener = await new Promise<Server>((resolve) => {
      const l = app.listen(0, "127.0.0.1", () => resolve(l));
    });
    try {
      const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
      expect(await (await fetch(`${base}/readyz`)).json()).toEqual({ status: "ready", database: "up", migrations: "current" });
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).toMatch(/^smpp_bound 1$/m);
      expect(metrics).toMatch(/^smpp_submits_total\{status="ok"\} \d+$/m);
      for (const s of smsc().sessions()) s.close();
      await waitUntil("unbound", async () => connection.state !== "bound");
      // A carrier's link down is an alert (SmsConnectorDown), not a reason to take the API out of its balancer.
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      expect(await (await fetch(`${base}/metrics`)).text()).toMatch(/^smpp_bound 0$/m);
      await waitUntil("bound again", async () => connection.state === "bound", 10_000);
    } finally {
      await new Promise((r) => listener.close(r));
    }
  });

  it("reconnects after the SMSC closes the connection; nothing lost, nothing sent twice", async () => {
    const a = await server().account();
    const before = smsc().binds.length;
    for (const s of smsc().sessions()) s.close();
    const connection = (worker().provider as SmppProvider).connection;
    await waitUntil("disconnected", async () => connection.state !== "bound");
    const id = await send(a, "after the drop", "+14155550138");
    await waitUntil("bound again", async () => connection.state === "bound", 10_000);
    expect(smsc().binds.length).toBe(before + 1);
    await inStatus(a, id, "sent");
    expect(submitsTo("14155550138")).toHaveLength(1);
  });

  it("inbound: message type 0 is an inbound message even when its text reads like a receipt; 0x04 never is; data_sm too", async () => {
    const a = await server().account();
    await a.holds("+14155550190");
    const receiptLike = "id:X1 sub:001 dlvrd:001 submit date:2611221000 done date:2611221001 stat:DELIVRD err:000 text:hi";
    const addresses = { source_addr_ton: 1, source_addr: "14155550191", dest_addr_ton: 1, destination_addr: "14155550190" };
    const short = Buffer.from(receiptLike, "latin1");
    expect((await smsc().deliver({ ...addresses, esm_class: 0, data_coding: 3, short_message: short })).command_status).toBe(0);
    expect((await smsc().deliver({ ...addresses, esm_class: 0x04, data_coding: 3, short_message: short })).command_status).toBe(0);
    const payload = Buffer.from("¡hola! 😀", "utf16le").swap16();
    const resp = await smsc().deliver({ ...addresses, esm_class: 0, data_coding: 8, message_payload: payload }, "data_sm");
    expect([resp.command, resp.command_status]).toEqual(["data_sm_resp", 0]);
    const { data } = await a.client.GET("/api/v1/messages", { params: { query: { phone: "+14155550191" } } });
    expect(data!.data.map((m) => [m.direction, m.body])).toEqual([
      ["inbound", "¡hola! 😀"],
      ["inbound", receiptLike],
    ]);
  });

  it("unbinds cleanly when the worker stops", async () => {
    await stop(1000);
    expect(smsc().unbinds.length).toBeGreaterThanOrEqual(1);
  });
});
