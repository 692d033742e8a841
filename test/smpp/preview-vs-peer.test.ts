// The preview's counts are what an SMSC receives: for GSM-7, UCS-2, escaped characters and emoji, the segments
// it counts are the submit_sm PDUs the SMSC on 127.0.0.1 gets and its encoding their data_coding; a
// smart-encoded message reaches the SMSC as its sentBody. Its receipts carry the reference and metadata.
import type { PDU } from "smpp";
import { describe, expect, it } from "vitest";
import { startReceiver } from "../helpers/receiver.js";
import { useTestServer } from "../helpers/server.js";
import { useSmppWorker } from "../helpers/smsc.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

const server = useTestServer({ ...fastWorkerConfig, provider: "smpp", smppMaxPerSecond: 500 });
const { smsc } = useSmppWorker(server);

const textOf = (pdu: PDU) => (pdu.short_message as { message: string }).message;

const CASES: [string, string][] = [
  ["GSM-7, one segment", "x".repeat(160)],
  ["GSM-7, two segments", "x".repeat(161)],
  ["escaped characters count two", "€".repeat(81)],
  ["UCS-2", "Привет ".repeat(12)],
  ["emoji (surrogate pairs never split)", "🎉".repeat(36)],
];

describe("the preview against what the SMSC receives", () => {
  it.each(CASES)("%s", async (_name, body) => {
    const a = await server().account();
    const counted = (await (await a.request("POST", "/api/v1/messages/preview", { body })).json()) as {
      encoding: string;
      segments: number;
    };
    const to = `+1415555${String(7000 + CASES.findIndex(([, b]) => b === body)).padStart(4, "0")}`;
    expect((await a.request("POST", "/api/v1/messages", { to, from: "ACME", body })).status).toBe(201);
    const digits = to.slice(1);
    await waitUntil(
      `${counted.segments} submits to ${to}`,
      async () => smsc().submits.filter((p) => p.destination_addr === digits).length >= counted.segments,
    );
    const pdus = smsc().submits.filter((p) => p.destination_addr === digits);
    expect(pdus).toHaveLength(counted.segments);
    expect(pdus.every((p) => p.data_coding === (counted.encoding === "GSM-7" ? 0 : 8))).toBe(true);
  });

  it("a smart-encoded message reaches the SMSC as its sentBody; receipts carry its reference and metadata", async () => {
    const a = await server().account();
    const receiver = await startReceiver();
    try {
      await a.request("POST", "/api/v1/webhooks", { name: "dlr", url: receiver.url });
      const res = await a.request("POST", "/api/v1/messages", {
        to: "+14155557101",
        from: "ACME",
        body: "It’s shipped — thanks…",
        smartEncoding: true,
        reference: "A-1042",
        metadata: { orderId: "1042" },
      });
      const { messageId } = (await res.json()) as { messageId: string };
      await waitUntil("the submit", async () => smsc().submits.some((p) => p.destination_addr === "14155557101"));
      const pdu = smsc().submits.find((p) => p.destination_addr === "14155557101")!;
      expect(pdu.data_coding).toBe(0);
      expect(textOf(pdu) ?? pdu.short_message).toBe("It's shipped - thanks...");
      await smsc().receipt(smsc().idOf(pdu), "DELIVRD");
      const all = await receiver.waitFor("two receipts", (r) => r.filter((x) => x.json.messageId === messageId).length === 2);
      for (const r of all.filter((x) => x.json.messageId === messageId)) {
        expect(r.json).toMatchObject({ reference: "A-1042", metadata: { orderId: "1042" } });
      }
    } finally {
      await receiver.close();
    }
  });
});
