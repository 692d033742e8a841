// Inbound messages over SMPP from an SMSC nobody here wrote the protocol code of (Net::SMPP,
// test/helpers/smsc-peer.pl, told on its stdin what to send): decoded by data_coding, long ones reassembled
// from UDH, SAR or message_payload, repeats dropped, stored before the deliver_sm_resp, and refused (so the
// SMSC retries) when the database cannot store them.
import { spawn, type ChildProcess } from "node:child_process";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { components } from "../../generated/api.js";
import { storeIncompleteInboundMessagesChore } from "../../server/jobs/maintenance/chores.js";
import { createLogger } from "../../server/logger.js";
import { createOperatorKey } from "../../server/operator/index.js";
import type { SmppProvider } from "../../server/providers/smpp/provider.js";
import type { Worker } from "../../server/worker.js";
import { startSmppTestWorker } from "../helpers/smsc.js";
import { startReceiver, type Receiver } from "../helpers/receiver.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { systemPackagePresent } from "../helpers/systemPackage.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

type InboundMessage = components["schemas"]["InboundMessage"];

const available = systemPackagePresent({
  neededBy: "the SMPP inbound tests",
  file: "/usr/share/perl5/Net/SMPP.pm",
  debianPackage: "libnet-smpp-perl",
});

const NUMBER = "14155550600"; // the account's number: every MO goes to it
const GB_NUMBER = "+447911123456"; // another of its numbers, reached by its national form 07911123456
const ESME_RSYSERR = 0x08;
const UDHI = 64;

const server = useTestServer({ ...fastWorkerConfig, provider: "smpp" });
const logLines: string[] = [];
const logSink = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(chunk.toString());
    done();
  },
});
let peer: ChildProcess | undefined;
let peerLog = "";
let worker: Worker | undefined;
let receiver: Receiver;
let account: TestAccount;

beforeAll(async () => {
  if (!available) return;
  // The peer resends a refused MO 200 ms later, as an SMSC retries.
  peer = spawn("perl", ["test/helpers/smsc-peer.pl", "200"], { stdio: ["pipe", "pipe", "inherit"] });
  peer.stdout!.on("data", (chunk: Buffer) => (peerLog += chunk.toString()));
  const port = Number((await waitUntil("the peer listening", async () => /LISTENING (\d+)/.exec(peerLog)))[1]);
  const s = server();
  worker = await startSmppTestWorker({
    db: s.db,
    databaseUrl: s.url,
    log: createLogger("info", logSink),
    config: { ...s.config, smppUrl: `smpp://inbound:secret@127.0.0.1:${port}`, smppDefaultCountry: "GB" },
  });
  const connection = (worker.provider as SmppProvider).connection;
  await waitUntil("bound to the peer", async () => connection.state === "bound", 10_000);
  receiver = await startReceiver("/events");
  account = await s.account();
  await account.holds(`+${NUMBER}`);
  const webhook = await account.request("POST", "/api/v1/webhooks", {
    name: "events",
    url: receiver.url,
    events: ["message.received", "contact.opted_out"],
  });
  expect(webhook.status).toBe(201);
});

afterAll(async () => {
  await worker?.stop(1000);
  peer?.kill("SIGKILL");
  await receiver?.close();
});

let tags = 0;
/** Has the peer send one MO; returns its tag. */
function mo(from: string, coding: number, short: Buffer, ...options: string[]): string {
  const tag = `mo${++tags}`;
  const hex = short.length > 0 ? short.toString("hex") : "-";
  peer!.stdin!.write(`MO ${tag} ${from} ${NUMBER} ${coding} ${hex} ${options.join(" ")}\n`);
  return tag;
}

/** The command_status of each response the peer got for `tag`, once it has `n` of them. */
async function acks(tag: string, n = 1): Promise<number[]> {
  const statuses = () => [...peerLog.matchAll(new RegExp(`^MOACK ${tag} (\\d+)$`, "gm"))].map((m) => Number(m[1]));
  return waitUntil(`${n} responses to ${tag}`, async () => statuses().length >= n && statuses(), 20_000, 10);
}

async function conversation(from: string): Promise<InboundMessage[]> {
  const { data } = await account.client.GET("/api/v1/messages", { params: { query: { phone: `+${from}`, direction: "inbound" } } });
  return data!.data as InboundMessage[];
}

const received = (from: string) =>
  receiver.waitFor(`message.received from +${from}`, (all) =>
    all.some((r) => r.json.event === "message.received" && r.json.from === `+${from}`),
  );

const gsm = (hex: string) => Buffer.from(hex.replace(/ /g, ""), "hex");
const latin1 = (text: string) => Buffer.from(text, "latin1");
const ucs2 = (text: string) => Buffer.from(text, "utf16le").swap16();
const udh8 = (ref: number, total: number, seq: number) => Buffer.from([0x05, 0x00, 0x03, ref, total, seq]);
const udh16 = (ref: number, total: number, seq: number) => Buffer.from([0x06, 0x08, 0x04, ref >> 8, ref & 0xff, total, seq]);

describe.skipIf(!available)("inbound messages over SMPP (Net::SMPP peer)", { timeout: 60_000 }, () => {
  it("decodes GSM 03.38, Latin-1 and UCS-2 (with a surrogate pair), stores each and posts message.received", async () => {
    // "Hi@£€ {ok}": € { } are escapes (0x1B ..) in the GSM default alphabet, one octet per septet.
    const cases = [
      { from: "14155550601", coding: 0, bytes: gsm("48 69 00 01 1b65 20 1b28 6f 6b 1b29"), body: "Hi@£€ {ok}", encoding: "GSM-7" },
      { from: "14155550602", coding: 3, bytes: latin1("Café ñandú ¿sí?"), body: "Café ñandú ¿sí?", encoding: "UCS-2" },
      { from: "14155550603", coding: 8, bytes: ucs2("Привет 👋"), body: "Привет 👋", encoding: "UCS-2" },
    ];
    const tags = cases.map((c) => mo(c.from, c.coding, c.bytes));
    for (const tag of tags) expect(await acks(tag)).toEqual([0]);
    for (const c of cases) {
      const [message, ...more] = await conversation(c.from);
      expect(more).toEqual([]);
      expect(message).toMatchObject({
        direction: "inbound",
        from: `+${c.from}`,
        to: `+${NUMBER}`,
        body: c.body,
        status: "received",
        segments: 1,
        encoding: c.encoding,
        incomplete: false,
      });
      const events = await received(c.from);
      const event = events.find((r) => r.json.from === `+${c.from}`)!.json;
      expect(event).toMatchObject({ event: "message.received", messageId: message!.messageId, body: c.body, incomplete: false });
    }
  });

  it("a deliver_sm to a number no account holds is acknowledged OK, counted, and kept for the operator, not for an account", async () => {
    const count = async () =>
      Number(/^sms_inbound_unrouted_total (\d+)/m.exec(await (await fetch(`${server().baseUrl}/metrics`)).text())?.[1] ?? 0);
    const before = await count();
    const tag = `mo${++tags}`;
    const logged = logLines.length;
    peer!.stdin!.write(`MO ${tag} 14155550609 14155550699 3 ${latin1("private words 4411").toString("hex")}\n`);
    expect(await acks(tag)).toEqual([0]);
    expect(await count()).toBe(before + 1);
    const lines = logLines.slice(logged).join("");
    expect(lines).toContain("+14155550699");
    expect(lines).not.toContain("private words 4411");
    expect(await server().db("messages").where({ sender: "+14155550609" })).toEqual([]);
    const operator = await createOperatorKey(server().db, "inbound test");
    const { data } = (await (
      await fetch(`${server().baseUrl}/api/v1/unrouted-messages`, { headers: { Authorization: `Bearer ${operator.key}` } })
    ).json()) as { data: { from: string; to: string; body: string }[] };
    expect(data).toContainEqual(expect.objectContaining({ from: "+14155550609", to: "+14155550699", body: "private words 4411" }));
  });

  it("a 3-part UDH message (8-bit reference) in shuffled, repeated parts and a 2-part one (16-bit) are one message each", async () => {
    const from = "14155550610";
    const parts = ["Part one of the message, ", "part two of it, ", "and part three."];
    const part = (seq: number) => Buffer.concat([udh8(0xa7, 3, seq), latin1(parts[seq - 1]!)]);
    const sent = [3, 1, 3, 2, 1].map((seq) => mo(from, 0, part(seq), `esm=${UDHI}`));
    for (const tag of sent) expect(await acks(tag)).toEqual([0]);
    const long = [1, 2].map((seq) =>
      mo(from, 8, Buffer.concat([udh16(0x1234, 2, seq), ucs2(["Ünïcode ", "twö 👋"][seq - 1]!)]), `esm=${UDHI}`),
    );
    for (const tag of long) expect(await acks(tag)).toEqual([0]);

    const messages = await conversation(from);
    expect(messages.map((m) => [m.body, m.segments, m.encoding, m.incomplete])).toEqual([
      ["Ünïcode twö 👋", 2, "UCS-2", false],
      [parts.join(""), 3, "GSM-7", false],
    ]);
    // Every part was acknowledged after it was stored; none waits any longer.
    expect(
      await server()
        .db("inbound_parts")
        .where({ sender: `+${from}` })
        .whereNull("assembled_at"),
    ).toEqual([]);
  });

  it("a 2-part message in SAR TLVs, second part first and repeated, is one message", async () => {
    const from = "14155550620";
    const sent = [2, 1, 2].map((seq) => mo(from, 8, ucs2(["Première partie, ", "seconde partie ✓"][seq - 1]!), `sar=513,2,${seq}`));
    for (const tag of sent) expect(await acks(tag)).toEqual([0]);
    const messages = await conversation(from);
    expect(messages.map((m) => [m.body, m.segments])).toEqual([["Première partie, seconde partie ✓", 2]]);
  });

  it("one message_payload (deliver_sm, and data_sm) is one message, longer than an outbound body may be", async () => {
    const from = "14155550630";
    const text = "The quick brown fox jumps over the lazy dog. ".repeat(45); // 2025 characters
    const tag = mo(from, 0, Buffer.alloc(0), `payload=${latin1(text).toString("hex")}`);
    expect(await acks(tag)).toEqual([0]);
    const viaDataSm = mo(from, 8, Buffer.alloc(0), `payload=${ucs2("data_sm ✓").toString("hex")}`, "data_sm");
    expect(await acks(viaDataSm)).toEqual([0]);
    const messages = await conversation(from);
    expect(messages.map((m) => m.body)).toEqual(["data_sm ✓", text]);
    expect(text.length).toBeGreaterThan(1600);
  });

  it("parts still missing after the reassembly timeout: what arrived is stored once, incomplete", async () => {
    const from = "14155550640";
    const sent = [1, 3].map((seq) => mo(from, 0, Buffer.concat([udh8(9, 3, seq), latin1(`<part ${seq}>`)]), `esm=${UDHI}`));
    for (const tag of sent) expect(await acks(tag)).toEqual([0]);
    const log = createLogger("silent");
    // Within the timeout the parts wait.
    expect(
      await storeIncompleteInboundMessagesChore(server().db, log, { reassemblyTimeoutMs: 60_000, autoReplyMaxPerHour: 100 }).runOnce(),
    ).toBe(0);
    expect(await conversation(from)).toEqual([]);
    // Past it (1 ms), the chore stores them.
    const expired = storeIncompleteInboundMessagesChore(server().db, log, { reassemblyTimeoutMs: 1, autoReplyMaxPerHour: 100 });
    await waitUntil("the incomplete message stored", async () => (await expired.runOnce()) === 1);
    const messages = await conversation(from);
    expect(messages.map((m) => [m.body, m.segments, m.incomplete])).toEqual([["<part 1><part 3>", 2, true]]);
    const events = await received(from);
    expect(events.find((r) => r.json.from === `+${from}`)!.json).toMatchObject({ body: "<part 1><part 3>", incomplete: true });
    expect(await expired.runOnce()).toBe(0);
  });

  it("when the database refuses the message the deliver_sm_resp is an error; the SMSC's retry is stored once", async () => {
    const from = "14155550650";
    const { db } = server();
    // The database itself refuses this sender's messages (a real constraint violation, nothing mocked).
    await db.raw(`ALTER TABLE messages ADD CONSTRAINT test_refuse_sender CHECK (sender <> '+${from}') NOT VALID`);
    try {
      const tag = mo(from, 0, latin1("please store me"));
      expect((await acks(tag, 2)).slice(0, 2)).toEqual([ESME_RSYSERR, ESME_RSYSERR]);
      await db.raw("ALTER TABLE messages DROP CONSTRAINT test_refuse_sender");
      const statuses = await waitUntil("the retry acknowledged OK", async () => {
        const s = await acks(tag);
        return s.includes(0) && s;
      });
      expect(statuses.at(-1)).toBe(0);
      expect(statuses.slice(0, -1).every((s) => s === ESME_RSYSERR)).toBe(true);
    } finally {
      await db.raw("ALTER TABLE messages DROP CONSTRAINT IF EXISTS test_refuse_sender");
    }
    expect((await conversation(from)).map((m) => m.body)).toEqual(["please store me"]);
    // The refusal is logged, without the message's text (a constraint error's detail would quote it).
    const lines = logLines.join("");
    expect(lines).toContain("asking the SMSC to retry");
    expect(lines).not.toContain("please store me");
  });

  it("STOP over SMPP opts the sender out and the confirmation goes back to it over SMPP", async () => {
    const from = "14155550660";
    expect(await acks(mo(from, 0, latin1("Stop!")))).toEqual([0]);
    const { data: entry } = await account.client.GET("/api/v1/opt-outs/{phone}", { params: { path: { phone: `+${from}` } } });
    expect(entry).toMatchObject({ phone: `+${from}`, source: "keyword", keyword: "STOP" });
    await receiver.waitFor("contact.opted_out", (all) =>
      all.some((r) => r.json.event === "contact.opted_out" && r.json.phone === `+${from}`),
    );
    await waitUntil("the confirmation submitted to the peer", async () => new RegExp(`^SUBMIT \\S+ ${from}$`, "m").test(peerLog));
  });

  it("reads addresses with their TON: a STOP from a national (GB) or 00-prefixed sender is honoured, a national destination routed", async () => {
    const stops = [
      { raw: "07911123457", options: ["ston=2"], e164: "+447911123457" }, // national, SMPP_DEFAULT_COUNTRY=GB
      { raw: "0014155550661", options: ["ston=0"], e164: "+14155550661" }, // unknown TON, international prefix
      { raw: "+14155550662", options: ["ston=0"], e164: "+14155550662" },
      { raw: "14155550663", options: ["ston=1"], e164: "+14155550663" },
    ];
    for (const stop of stops) {
      expect(await acks(mo(stop.raw, 0, latin1("STOP"), ...stop.options)), stop.raw).toEqual([0]);
      const { data: entry } = await account.client.GET("/api/v1/opt-outs/{phone}", { params: { path: { phone: stop.e164 } } });
      expect(entry, stop.raw).toMatchObject({ phone: stop.e164, source: "keyword", keyword: "STOP" });
    }
    // A national-format destination reaches the owner of the number (it was acknowledged and dropped as unrouted).
    await account.holds(GB_NUMBER);
    expect(await acks(mo("14155550664", 0, latin1("to the GB number"), "dton=2", "dest=07911123456"))).toEqual([0]);
    const [message] = await conversation("14155550664");
    expect(message).toMatchObject({ from: "+14155550664", to: GB_NUMBER, body: "to the GB number" });
  });
});
