// Receipts to SMPP client applications (docs/SMPP.md, "For client applications"), end to end with a worker on
// the simulator and a real client (the `smpp` package): a submit_sm with registered_delivery gets a deliver_sm
// of its final status whose receipted_message_id is the id its submit_sm_resp gave; receipts wait in
// PostgreSQL while the account has no receiver bound and all arrive on its next bind; inbound messages to the
// account's numbers go the same way; one the client leaves unanswered is sent again.
import smpp, { type PDU, type Session } from "smpp";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { giveSmppCredentials, useSmppServer } from "../helpers/smppServer.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer({ ...fastWorkerConfig });
useTestWorker(server);
// Parts of a concatenated submit expire after half a second here (10 minutes by default), swept every 100 ms.
const smppServer = useSmppServer(server, { responseTimeoutMs: 1_000, partMaxAgeMs: 500, sweepMs: 100 });
let account: TestAccount;
const sessions: Session[] = [];

beforeAll(async () => {
  account = await server().account("smpp-receipts");
  await giveSmppCredentials(server, account.accountId, { systemId: "rcpt", password: "pw", window: 50 });
  await giveSmppCredentials(server, account.accountId, { systemId: "rcpthex", password: "pw", messageIdFormat: "hex" });
});
afterEach(() => {
  for (const s of sessions.splice(0)) s.destroy();
});

/** A bound session whose deliver_sm are collected (answered unless `answer` says no). */
async function bound(mode: string, systemId = "rcpt", answer: (pdu: PDU, n: number) => boolean = () => true) {
  const session = smpp.connect({ url: `smpp://127.0.0.1:${smppServer().port}` });
  sessions.push(session);
  session.on("error", () => {});
  const delivered: PDU[] = [];
  session.on("deliver_sm", (pdu: PDU) => {
    delivered.push(pdu);
    if (answer(pdu, delivered.length)) session.send(pdu.response());
  });
  await new Promise<void>((resolve) => session.socket.once("connect", () => resolve()));
  const resp = await new Promise<PDU>((resolve) =>
    (session as unknown as Record<string, (f: unknown, cb: (p: PDU) => void) => void>)[mode]!(
      { system_id: systemId, password: "pw" },
      resolve,
    ),
  );
  expect(resp.command_status).toBe(0);
  return { session, delivered };
}

const submit = (session: Session, text: string, fields: Record<string, unknown> = {}) =>
  new Promise<PDU>((resolve) =>
    session.submit_sm(
      {
        source_addr_ton: 5,
        source_addr: "ACME",
        dest_addr_ton: 1,
        destination_addr: "14155550123",
        short_message: text,
        registered_delivery: 1,
        ...fields,
      },
      resolve,
    ),
  );

const receiptText = (pdu: PDU) => (pdu.short_message as { message: string }).message;
const waiting = async () => Number((await server().db("smpp_outbox").where({ account_id: account.accountId }).count({ n: "*" }))[0]!.n);

describe("receipts to SMPP client applications", () => {
  it("a bound transceiver gets its message's final status, receipted_message_id the id it was given", async () => {
    const { session, delivered } = await bound("bind_transceiver");
    const resp = await submit(session, "receipt please");
    expect(resp.command_status).toBe(0);
    const id = resp.message_id as string;
    await waitUntil("the receipt", async () => delivered.find((p) => p.receipted_message_id === id));
    const receipt = delivered.find((p) => p.receipted_message_id === id)!;
    expect(receipt.esm_class).toBe(0x04);
    expect(receipt.message_state).toBe(2); // DELIVERED
    expect(receiptText(receipt)).toMatch(
      new RegExp(`^id:${id} sub:001 dlvrd:001 submit date:\\d{10} done date:\\d{10} stat:DELIVRD err:000 text:receipt please$`),
    );
    expect(receipt.source_addr).toBe("14155550123");
    expect(receipt.destination_addr).toBe("ACME");
    // A message whose submit asked for no receipt gets none; an undelivered one is told so.
    const silent = await submit(session, "no receipt", { registered_delivery: 0 });
    const failed = await submit(session, "undelivered", { destination_addr: "14155550002" });
    await waitUntil("the undelivered receipt", async () => delivered.find((p) => p.receipted_message_id === failed.message_id));
    expect(receiptText(delivered.find((p) => p.receipted_message_id === failed.message_id)!)).toMatch(/stat:UNDELIV err:001/);
    await waitUntil("the silent message final", async () => {
      const m = (await (await account.request("GET", `/api/v1/messages/${silent.message_id as string}`)).json()) as { status: string };
      return m.status === "delivered" || undefined;
    });
    expect(delivered.filter((p) => p.receipted_message_id === silent.message_id)).toEqual([]);
    await waitUntil("every receipt acknowledged and deleted", async () => (await waiting()) === 0 || undefined);
  });

  it("keeps receipts while no receiver is bound and delivers them all on the next bind", { timeout: 60_000 }, async () => {
    const { session } = await bound("bind_transmitter");
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await submit(session, `kept ${i}`)).message_id as string);
    await new Promise<void>((resolve) => session.unbind({}, () => resolve()));
    await waitUntil("the 20 receipts stored", async () => (await waiting()) === 20 || undefined, 30_000);
    // /metrics tells the operator (read from the database: any API process, whichever runs the SMPP server).
    const metrics = await (await fetch(`${server().baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/^sms_smpp_client_waiting\{kind="receipt"\} 20$/m);
    expect(Number(/^sms_smpp_client_oldest_waiting_seconds\{kind="receipt"\} (\S+)$/m.exec(metrics)![1])).toBeGreaterThanOrEqual(0);
    const receiver = await bound("bind_receiver");
    const bindsNow = await (await fetch(`${server().baseUrl}/metrics`)).text();
    expect(bindsNow).toMatch(new RegExp(`^sms_smpp_client_binds\\{account="${account.accountId}"\\} [1-9]`, "m"));
    await waitUntil(
      "the 20 receipts delivered",
      async () => ids.every((id) => receiver.delivered.some((p) => p.receipted_message_id === id)) || undefined,
    );
    await waitUntil("and deleted once answered", async () => (await waiting()) === 0 || undefined);
  });

  it("sends inbound messages to the account's numbers to its receiver as deliver_sm, kept while none is bound", async () => {
    await account.holds("+14155550470");
    const long = "é✓".repeat(100); // 400 octets in UCS-2: more than short_message holds
    for (const body of ["hello from a phone", long]) {
      const res = await account.request("POST", "/api/v1/simulator/inbound", { from: "+14155550471", to: "+14155550470", body });
      expect(res.status, await res.clone().text()).toBe(202);
    }
    await waitUntil("both kept", async () => (await waiting()) === 2 || undefined);
    const { delivered } = await bound("bind_receiver");
    await waitUntil("both delivered", async () => delivered.length >= 2 || undefined);
    const [first, second] = delivered;
    expect(first).toMatchObject({ esm_class: 0, data_coding: 0, source_addr: "14155550471", destination_addr: "14155550470" });
    expect(receiptText(first!)).toBe("hello from a phone");
    expect(second).toMatchObject({ esm_class: 0, data_coding: 8 });
    expect((second!.message_payload as { message: string }).message).toBe(long);
    await waitUntil("deleted once answered", async () => (await waiting()) === 0 || undefined);
  });

  it("answers a concatenated message whose parts never all come with an undelivered receipt, and drops its parts", async () => {
    const { session, delivered } = await bound("bind_transceiver");
    const udh = Buffer.from([0x05, 0x00, 0x03, 0x51, 3, 1]); // part 1 of 3; parts 2 and 3 never come
    const resp = await submit(session, "", { esm_class: 0x40, short_message: { udh, message: "only the first part" } });
    expect(resp.command_status).toBe(0);
    const id = resp.message_id as string;
    await waitUntil("the undelivered receipt", async () => delivered.find((p) => p.receipted_message_id === id));
    const receipt = delivered.find((p) => p.receipted_message_id === id)!;
    expect(receiptText(receipt)).toMatch(new RegExp(`^id:${id} sub:001 dlvrd:000 .* stat:UNDELIV err:001 text:$`));
    expect(receipt).toMatchObject({ message_state: 5, source_addr: "14155550123", destination_addr: "ACME" });
    expect(Number((await server().db("smpp_submit_parts").where({ account_id: account.accountId }).count({ n: "*" }))[0]!.n)).toBe(0);
    await waitUntil("deleted once answered", async () => (await waiting()) === 0 || undefined);
  });

  it("sends a receipt left unanswered again, and writes ids in the credentials' format", { timeout: 30_000 }, async () => {
    // The first deliver_sm is not answered: its lease runs out (response timeout 1 s + 1 s) and it comes again.
    const { session, delivered } = await bound("bind_transceiver", "rcpthex", (_pdu, n) => n > 1);
    const resp = await submit(session, "twice");
    const id = resp.message_id as string;
    expect(id).toMatch(/^[0-9a-f]{1,16}$/);
    await waitUntil(
      "the receipt twice",
      async () => delivered.filter((p) => p.receipted_message_id === id).length >= 2 || undefined,
      15_000,
    );
    await waitUntil("deleted once answered", async () => (await waiting()) === 0 || undefined);
  });
});
