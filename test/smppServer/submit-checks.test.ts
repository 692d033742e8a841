// SMPP submits are checked as HTTP sends are (docs/SMPP.md, "For client applications"), over a real client (the
// `smpp` package) on 127.0.0.1: no text is ESME_RINVMSGLEN, an unsupported data_coding or bytes invalid in it
// ESME_RINVDCS, text over POST /messages' 1600 characters ESME_RINVMSGLEN (a concatenated message's parts
// added up too), a validity_period past seven days ESME_RINVEXPIRY, and at most SMPP_SERVER_MAX_OPEN_PARTS
// incomplete messages per account (ESME_RMSGQFUL beyond). Nothing refused is stored or charged, and no bad
// input ends in ESME_RSYSERR.
import smpp, { type PDU, type Session } from "smpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { boundTransceiver, giveSmppCredentials, useSmppServer } from "../helpers/smppServer.js";

const server = useTestServer();
const MAX_OPEN = 3;
const smppServer = useSmppServer(server, { maxOpenParts: MAX_OPEN });
const e = smpp.errors;
let account: TestAccount;
let session: Session;

beforeAll(async () => {
  account = await server().account("smpp-checks");
  await giveSmppCredentials(server, account.accountId, { systemId: "checks1", password: "pw", submitsPerSecond: 1000 });
  session = await boundTransceiver(smppServer().port, "checks1", "pw");
});
afterAll(() => session?.destroy());

const submit = (fields: Record<string, unknown>) =>
  new Promise<PDU>((resolve) =>
    session.submit_sm({ source_addr_ton: 5, source_addr: "ACME", dest_addr_ton: 1, destination_addr: "14155550123", ...fields }, resolve),
  );

/** What the account has stored: messages, parts waiting, and what it was charged. */
async function stored() {
  const db = server().db;
  const count = async (table: string) => Number((await db(table).where({ account_id: account.accountId }).count({ n: "*" }).first())!.n);
  return { messages: await count("messages"), parts: await count("smpp_submit_parts") };
}

/** Submits `fields`, expects `status`, and that nothing was stored. */
async function refused(fields: Record<string, unknown>, status: number, what: string) {
  const before = await stored();
  const resp = await submit(fields);
  expect(resp.command_status, what).toBe(status);
  expect(await stored(), what).toEqual(before);
}

describe("SMPP submits, checked as HTTP sends are", () => {
  it("refuses a submit without text with ESME_RINVMSGLEN: an empty short_message, a part that is a UDH alone", async () => {
    await refused({ short_message: "" }, e.ESME_RINVMSGLEN!, "empty short_message");
    await refused(
      { short_message: { udh: Buffer.from([0x05, 0x00, 0x03, 0x01, 2, 1]), message: Buffer.alloc(0) }, esm_class: 0x40 },
      e.ESME_RINVMSGLEN!,
      "UDH only",
    );
    await refused(
      { short_message: "", sar_msg_ref_num: 5, sar_total_segments: 2, sar_segment_seqnum: 1 },
      e.ESME_RINVMSGLEN!,
      "empty SAR part",
    );
  });

  it("refuses an unsupported data_coding, or bytes invalid in it, with ESME_RINVDCS", async () => {
    await refused({ data_coding: 4, short_message: Buffer.from([0x00, 0xff, 0xfe, 0x00]) }, e.ESME_RINVDCS!, "binary with NUL bytes");
    for (const dc of [2, 5, 6, 7, 9, 0x0a, 0x0d, 0x0e, 0xf0, 0xf4])
      await refused({ data_coding: dc, short_message: Buffer.from("hello") }, e.ESME_RINVDCS!, `data_coding ${dc}`);
    await refused({ data_coding: 3, short_message: Buffer.from([0x48, 0x00, 0x49]) }, e.ESME_RINVDCS!, "Latin-1 with a NUL");
    await refused({ data_coding: 8, short_message: Buffer.from([0xd8, 0x00, 0x00, 0x41]) }, e.ESME_RINVDCS!, "UCS-2 lone surrogate");
    await refused({ data_coding: 8, short_message: Buffer.from([0x00, 0x00]) }, e.ESME_RINVDCS!, "UCS-2 NUL");
    // The codings served stay served.
    const ok = await submit({ data_coding: 8, short_message: Buffer.from([0xd8, 0x3d, 0xde, 0x00]) }); // 😀
    expect(ok.command_status).toBe(0);
  });

  it("refuses text over POST /messages' 1600 characters with ESME_RINVMSGLEN", async () => {
    await refused({ message_payload: "x".repeat(5000) }, e.ESME_RINVMSGLEN!, "5,000-character message_payload");
    await refused({ message_payload: "x".repeat(1601) }, e.ESME_RINVMSGLEN!, "1,601 characters");
    expect((await submit({ message_payload: "x".repeat(1600) })).command_status).toBe(0);
  });

  it("refuses the part of a concatenated message that takes its text past 1600 characters, and drops its parts", async () => {
    // A 255-part message of 153 characters a part: parts 1..10 (1,530 characters) are kept, part 11 is refused
    // and the message's parts are gone, as are any sent after it.
    const part = (seq: number) => ({
      short_message: "y".repeat(153),
      sar_msg_ref_num: 255,
      sar_total_segments: 255,
      sar_segment_seqnum: seq,
    });
    const messagesBefore = (await stored()).messages;
    for (let seq = 1; seq <= 10; seq++) expect((await submit(part(seq))).command_status, `part ${seq}`).toBe(0);
    expect((await stored()).parts).toBe(10);
    expect((await submit(part(11))).command_status).toBe(e.ESME_RINVMSGLEN);
    expect(await stored()).toEqual({ messages: messagesBefore, parts: 0 });
  });

  it("caps validity_period as validityPeriod is (seven days): longer is ESME_RINVEXPIRY", async () => {
    await refused({ short_message: "x", validity_period: "990000000000000R" }, e.ESME_RINVEXPIRY!, "99 years");
    await refused({ short_message: "x", validity_period: "000008000000000R" }, e.ESME_RINVEXPIRY!, "8 days");
    expect((await submit({ short_message: "x", validity_period: "000007000000000R" })).command_status).toBe(0);
  });

  it(`keeps at most SMPP_SERVER_MAX_OPEN_PARTS (here ${MAX_OPEN}) incomplete messages per account: ESME_RMSGQFUL beyond`, async () => {
    const part = (ref: number, seq: number) => ({
      short_message: `part ${seq}`,
      sar_msg_ref_num: ref,
      sar_total_segments: 2,
      sar_segment_seqnum: seq,
    });
    for (let ref = 1; ref <= MAX_OPEN; ref++) expect((await submit(part(ref, 1))).command_status).toBe(0);
    await refused(part(MAX_OPEN + 1, 1), e.ESME_RMSGQFUL!, "one more incomplete message");
    // A part of a message already open is taken; completing one frees its place.
    const done = await submit(part(1, 2));
    expect(done.command_status).toBe(0);
    expect((await submit(part(MAX_OPEN + 1, 1))).command_status).toBe(0);
    expect((await stored()).parts).toBe(MAX_OPEN);
  });
});
