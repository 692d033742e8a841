// The SMPP server for client applications (docs/SMPP.md, "For client applications"), driven by a real client
// (the `smpp` package) over TCP on 127.0.0.1: binds and their refusals, submit_sm accepted exactly as
// POST /messages accepts a message (and refused with SMPP's codes), the per-bind throttle, short message ids,
// a malformed PDU, and credentials deleted under an open bind.
import { readFileSync } from "node:fs";
import { Socket } from "node:net";
import { resolve } from "node:path";
import smpp, { type PDU, type Session } from "smpp";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { giveSmppCredentials, useSmppServer } from "../helpers/smppServer.js";
import { waitUntil } from "../helpers/wait.js";

const server = useTestServer();
const smppServer = useSmppServer(server, {
  tls: {
    port: 0,
    cert: readFileSync(resolve(import.meta.dirname, "../fixtures/smpp-tls/cert.pem")),
    key: readFileSync(resolve(import.meta.dirname, "../fixtures/smpp-tls/key.pem")),
  },
});
let account: TestAccount;
const sessions: Session[] = [];

beforeAll(async () => {
  account = await server().account("smpp-client");
  await credentials({ systemId: "client1", password: "pw1" });
});
afterEach(() => {
  for (const s of sessions.splice(0)) s.destroy();
});

const credentials = (body: Record<string, unknown>) => giveSmppCredentials(server, account.accountId, body);

/** A connected client session (not bound); over TLS with `tls`, trusting the test's self-signed certificate. */
async function connect(tls = false): Promise<Session> {
  const options = tls
    ? { url: `ssmpp://127.0.0.1:${smppServer().tlsPort}`, ca: readFileSync(resolve(import.meta.dirname, "../fixtures/smpp-tls/cert.pem")) }
    : { url: `smpp://127.0.0.1:${smppServer().port}` };
  const session = smpp.connect(options);
  sessions.push(session);
  session.on("error", () => {}); // a session the server closes on purpose
  await new Promise<void>((done) => session.socket.once(tls ? "secureConnect" : "connect", () => done()));
  return session;
}

/** Sends a PDU and waits for its response. */
const call = (session: Session, command: string, fields: Record<string, unknown> = {}) =>
  new Promise<PDU>((resolve) =>
    (session as unknown as Record<string, (f: unknown, cb: (p: PDU) => void) => void>)[command]!(fields, resolve),
  );

async function bound(systemId = "client1", password = "pw1", mode = "bind_transceiver"): Promise<Session> {
  const session = await connect();
  const resp = await call(session, mode, { system_id: systemId, password });
  expect(resp.command_status).toBe(0);
  return session;
}

const submit = (session: Session, fields: Record<string, unknown>) =>
  call(session, "submit_sm", { source_addr_ton: 5, source_addr: "ACME", dest_addr_ton: 1, destination_addr: "14155550123", ...fields });

const message = async (id: string) => (await (await account.request("GET", `/api/v1/messages/${id}`)).json()) as Record<string, unknown>;

describe("the SMPP server", () => {
  it("refuses unknown system_ids, wrong passwords, addresses not allowed, binds over maxBinds and a second bind", async () => {
    await credentials({ systemId: "single", password: "pw", maxBinds: 1 });
    await credentials({ systemId: "faraway", password: "pw", allowedIps: ["10.0.0.0/8"] });
    const e = smpp.errors;
    const s = await connect();
    expect((await call(s, "bind_transceiver", { system_id: "nobody", password: "pw" })).command_status).toBe(e.ESME_RINVSYSID);
    expect((await call(s, "bind_transceiver", { system_id: "single", password: "wrong" })).command_status).toBe(e.ESME_RINVPASWD);
    expect((await call(s, "bind_transceiver", { system_id: "faraway", password: "pw" })).command_status).toBe(e.ESME_RBINDFAIL);
    expect((await call(s, "bind_transceiver", { system_id: "single", password: "pw" })).command_status).toBe(0);
    expect((await call(s, "bind_transmitter", { system_id: "single", password: "pw" })).command_status).toBe(e.ESME_RALYBND);
    const other = await connect();
    expect((await call(other, "bind_transmitter", { system_id: "single", password: "pw" })).command_status).toBe(e.ESME_RBINDFAIL);
    // Its place comes back when the first unbinds.
    expect((await call(s, "unbind")).command_status).toBe(0);
    await waitUntil("the bind's row gone", async () => (await server().db("smpp_binds").where({ system_id: "single" })).length === 0);
    expect((await call(other, "bind_transmitter", { system_id: "single", password: "pw" })).command_status).toBe(0);
    expect((await call(other, "enquire_link")).command_status).toBe(0);
  });

  it("stores a submit_sm as POST /messages would, and answers with the message's id", async () => {
    const s = await bound();
    const gsm = await submit(s, { short_message: "hello over SMPP" });
    expect(gsm.command_status).toBe(0);
    expect(await message(gsm.message_id as string)).toMatchObject({
      messageId: gsm.message_id,
      to: "+14155550123",
      from: "ACME",
      body: "hello over SMPP",
      status: expect.stringMatching(/^(scheduled|sending|sent|delivered)$/),
    });
    const ucs2 = await submit(s, { data_coding: 8, short_message: "héllo ✓ 你好" });
    expect(ucs2.command_status).toBe(0);
    expect(await message(ucs2.message_id as string)).toMatchObject({ body: "héllo ✓ 你好" });
    const latin1 = await submit(s, { data_coding: 3, short_message: "Grüße" });
    expect(await message(latin1.message_id as string)).toMatchObject({ body: "Grüße" });
    // A relative schedule_delivery_time (one hour) and validity_period (two hours), both from now as SMPP counts.
    const at = Date.now();
    const later = await submit(s, {
      short_message: "later",
      schedule_delivery_time: "000000010000000R",
      validity_period: "000000020000000R",
    });
    expect(later.command_status).toBe(0);
    const stored = await message(later.message_id as string);
    expect(Math.abs(new Date(stored.scheduledAt as string).getTime() - (at + 3_600_000))).toBeLessThan(5_000);
    expect(Math.abs(new Date(stored.validUntil as string).getTime() - (at + 7_200_000))).toBeLessThan(5_000);
  });

  it("refuses with SMPP's codes what POST /messages refuses, and submits on a receiver bind", async () => {
    const e = smpp.errors;
    const s = await bound();
    // A number the account does not hold.
    expect((await submit(s, { source_addr_ton: 1, source_addr: "14155550999", short_message: "x" })).command_status).toBe(
      e.ESME_RINVSRCADR,
    );
    expect((await submit(s, { destination_addr: "12", short_message: "x" })).command_status).toBe(e.ESME_RINVDSTADR);
    expect((await submit(s, { short_message: "x", schedule_delivery_time: "not a time" })).command_status).toBe(e.ESME_RINVSCHED);
    const receiver = await bound("client1", "pw1", "bind_receiver");
    expect((await submit(receiver, { short_message: "x" })).command_status).toBe(e.ESME_RINVBNDSTS);
  });

  it("stores the parts of a concatenated submit_sm as ONE message, answering every part with its id", async () => {
    const s = await bound();
    const parts = ["The first part, ", "the second part, ", "and the third."];
    // UDH with an 8-bit reference, parts out of order; then a 16-bit reference; then the SAR TLVs.
    const udh8 = (seq: number) => Buffer.from([0x05, 0x00, 0x03, 0x2a, 3, seq]);
    const udh16 = (seq: number) => Buffer.from([0x06, 0x08, 0x04, 0x12, 0x34, 3, seq]);
    for (const [how, fields] of [
      ["8-bit", (seq: number) => ({ esm_class: 0x40, short_message: { udh: udh8(seq), message: parts[seq - 1] } })],
      ["16-bit", (seq: number) => ({ esm_class: 0x40, short_message: { udh: udh16(seq), message: parts[seq - 1] } })],
      ["SAR", (seq: number) => ({ short_message: parts[seq - 1], sar_msg_ref_num: 77, sar_total_segments: 3, sar_segment_seqnum: seq })],
    ] as const) {
      const answers = [];
      for (const seq of [2, 1, 3]) answers.push(await submit(s, { destination_addr: `1415555060${how.length}`, ...fields(seq) }));
      expect(
        answers.map((a) => a.command_status),
        how,
      ).toEqual([0, 0, 0]);
      const ids = new Set(answers.map((a) => a.message_id));
      expect(ids.size, how).toBe(1);
      expect(await message(answers[0]!.message_id as string)).toMatchObject({ body: parts.join(""), to: `+1415555060${how.length}` });
    }
    expect(Number((await server().db("smpp_submit_parts").count({ n: "*" }).first())!.n)).toBe(0);
  });

  it("throttles each bind at submitsPerSecond: a refused submit stores nothing, an accepted one is stored once", async () => {
    await credentials({ systemId: "slow", password: "pw", submitsPerSecond: 2 });
    const s = await bound("slow", "pw");
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => submit(s, { short_message: `burst ${i}` })));
    const accepted = answers.filter((a) => a.command_status === 0);
    const throttled = answers.filter((a) => a.command_status === smpp.errors.ESME_RTHROTTLED);
    expect(accepted.length + throttled.length).toBe(6);
    expect(accepted).toHaveLength(2); // a second's worth at once
    const { rows } = await server().db.raw("SELECT body FROM messages WHERE account_id = ? AND body LIKE 'burst %'", [account.accountId]);
    expect(rows).toHaveLength(2);
    // /metrics counts them (written by the SMPP server process every refresh, summed over every process).
    const counted = (outcome: string, metrics: string) =>
      Number(
        new RegExp(`^sms_smpp_client_submits_total\\{account="${account.accountId}",outcome="${outcome}"\\} (\\S+)$`, "m").exec(
          metrics,
        )?.[1] ?? -1,
      );
    await waitUntil("the throttled submits counted in /metrics", async () => {
      const metrics = await (await fetch(`${server().baseUrl}/metrics`)).text();
      return counted("throttled", metrics) >= 4 && counted("accepted", metrics) >= 2 ? true : undefined;
    });
  });

  it("writes short ids in hex or decimal when the credentials ask for them", async () => {
    await credentials({ systemId: "hexids", password: "pw", messageIdFormat: "hex" });
    await credentials({ systemId: "decids", password: "pw", messageIdFormat: "decimal" });
    for (const [systemId, pattern, radix] of [
      ["hexids", /^[0-9a-f]{1,16}$/, 16],
      ["decids", /^\d{1,20}$/, 10],
    ] as const) {
      const s = await bound(systemId, "pw");
      const resp = await submit(s, { short_message: `id as ${systemId}` });
      expect(resp.message_id).toMatch(pattern);
      const row = await server()
        .db("messages")
        .where({ account_id: account.accountId, body: `id as ${systemId}` })
        .first("smpp_id");
      expect(BigInt(row.smpp_id)).toBe(BigInt(radix === 16 ? `0x${resp.message_id as string}` : (resp.message_id as string)));
    }
  });

  it("answers a whole frame it cannot parse with generic_nack and goes on; closes on a frame that cannot be whole", async () => {
    const s = await bound();
    // A whole frame of an unknown command (0x00000999), sequence 77.
    const frame = Buffer.alloc(16);
    frame.writeUInt32BE(16, 0);
    frame.writeUInt32BE(0x00000999, 4);
    frame.writeUInt32BE(77, 12);
    const nack = new Promise<PDU>((resolve) => s.once("generic_nack", resolve));
    s.socket.write(frame);
    const answer = await nack;
    expect(answer.sequence_number).toBe(77);
    expect((await call(s, "enquire_link")).command_status).toBe(0);

    const raw = new Socket();
    await new Promise<void>((resolve) => raw.connect(smppServer().port, "127.0.0.1", resolve));
    const closed = new Promise<void>((resolve) => raw.once("close", () => resolve()));
    const bad = Buffer.alloc(8);
    bad.writeUInt32BE(3, 0); // a command_length shorter than a header
    raw.write(bad);
    await closed;
  });

  it("takes the same session over TLS on its TLS port", async () => {
    const s = await connect(true);
    expect((await call(s, "bind_transceiver", { system_id: "client1", password: "pw1" })).command_status).toBe(0);
    const resp = await submit(s, { short_message: "over TLS" });
    expect(resp.command_status).toBe(0);
    expect(await message(resp.message_id as string)).toMatchObject({ body: "over TLS" });
  });

  it("shows open sessions with their credentials to the operator and to the account, never to another account", async () => {
    await credentials({ systemId: "shown", password: "pw" });
    const s = await bound("shown", "pw", "bind_receiver");
    type Listed = { data: { systemId: string; sessions: { mode: string; remoteAddress: string; boundAt: string; seenAt: string }[] }[] };
    const own = (await (await account.request("GET", "/api/v1/smpp-credentials")).json()) as Listed;
    const shown = own.data.find((c) => c.systemId === "shown")!;
    expect(shown).not.toHaveProperty("password");
    expect(shown.sessions).toEqual([
      { mode: "receiver", remoteAddress: "127.0.0.1", boundAt: expect.any(String), seenAt: expect.any(String) },
    ]);
    const { request } = await server().operator();
    const operatorView = (await (await request("GET", `/api/v1/accounts/${account.accountId}/smpp-credentials`)).json()) as Listed;
    expect(operatorView.data.find((c) => c.systemId === "shown")!.sessions).toHaveLength(1);
    const stranger = await server().account("smpp-stranger");
    expect(await (await stranger.request("GET", "/api/v1/smpp-credentials")).json()).toEqual({ data: [] });

    expect((await call(s, "unbind")).command_status).toBe(0);
    await waitUntil("the session no longer shown", async () => {
      const after = (await (await account.request("GET", "/api/v1/smpp-credentials")).json()) as Listed;
      return after.data.find((c) => c.systemId === "shown")!.sessions.length === 0 || undefined;
    });
  });

  it("refuses the submits of a suspended account within a second, and its new binds", async () => {
    const suspended = await server().account("smpp-suspended");
    await giveSmppCredentials(server, suspended.accountId, { systemId: "suspendme", password: "pw" });
    const s = await bound("suspendme", "pw");
    expect((await submit(s, { short_message: "before" })).command_status).toBe(0);
    const { request } = await server().operator();
    expect((await request("PATCH", `/api/v1/accounts/${suspended.accountId}`, { suspended: true })).status).toBe(200);
    await waitUntil(
      "a submit refused",
      async () => (await submit(s, { short_message: "after" })).command_status === smpp.errors.ESME_RSUBMITFAIL || undefined,
    );
    const other = await connect();
    expect((await call(other, "bind_transceiver", { system_id: "suspendme", password: "pw" })).command_status).toBe(
      smpp.errors.ESME_RBINDFAIL,
    );
  });

  it("unbinds the open binds of deleted credentials", async () => {
    await credentials({ systemId: "doomed", password: "pw" });
    const s = await bound("doomed", "pw");
    const unbound = new Promise<PDU>((resolve) => s.once("unbind", resolve));
    const { request } = await server().operator();
    expect((await request("DELETE", `/api/v1/accounts/${account.accountId}/smpp-credentials/doomed`)).status).toBe(204);
    const pdu = await unbound;
    s.send(pdu.response());
    await waitUntil("the session closed", async () => s.socket.destroyed || undefined);
  });
});
