// Validity over SMPP against an SMSC started here on 127.0.0.1: the time left travels as submit_sm's
// validity_period (relative format), and a stat:EXPIRED receipt makes the message undelivered / expired.
import { describe, expect, it } from "vitest";
import type { components } from "../../generated/api.js";
import { relativeValidity } from "../../server/providers/smpp/pdus.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { useSmppWorker } from "../helpers/smsc.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

const server = useTestServer({ ...fastWorkerConfig, provider: "smpp", smppMaxPerSecond: 200 });
const { smsc } = useSmppWorker(server);

async function send(a: TestAccount, to: string, validityPeriod?: number) {
  const { data, error } = await a.client.POST("/api/v1/scheduler/schedule", {
    body: { to, body: "code 1234", from: "ACME", scheduledAt: new Date(Date.now() + 1000).toISOString(), validityPeriod },
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

describe("SMPP validity", () => {
  it("relativeValidity writes the time left as YYMMDDhhmmss, rounded up, at least one second", () => {
    const now = new Date("2026-11-23T10:00:00.000Z");
    const at = (ms: number) => new Date(now.getTime() + ms);
    expect(relativeValidity(at(600_000), now)).toBe("000000001000");
    expect(relativeValidity(at(604_800_000), now)).toBe("000007000000");
    expect(relativeValidity(at((26 * 3600 + 61) * 1000 + 1), now)).toBe("000001020102");
    expect(relativeValidity(at(-5000), now)).toBe("000000000001");
  });

  it("sends the validity left as submit_sm validity_period in relative format; none without a validityPeriod", async () => {
    const a = await server().account();
    const limited = await send(a, "+14155550161", 3600);
    const open = await send(a, "+14155550162");
    const sent = await inStatus(a, limited, "sent");
    await inStatus(a, open, "sent");
    const [pdu] = smsc().submits.filter((p) => p.destination_addr === "14155550161");
    // The smpp package decodes a relative time (…R) into now + the period: it lands on validUntil, give or take
    // the rounding up to a second and the time on the wire.
    const decoded = pdu!.validity_period as Date;
    expect(decoded).toBeInstanceOf(Date);
    expect(Math.abs(decoded.getTime() - new Date(sent.validUntil!).getTime())).toBeLessThan(3000);
    const [plain] = smsc().submits.filter((p) => p.destination_addr === "14155550162");
    expect(plain!.validity_period || undefined).toBeUndefined();
  });

  it("a stat:EXPIRED receipt makes the message undelivered with error code expired", async () => {
    const a = await server().account();
    const id = await send(a, "+14155550163", 60);
    const sent = await inStatus(a, id, "sent");
    await smsc().receipt(sent.providerMessageId!, "EXPIRED");
    const m = await inStatus(a, id, "undelivered");
    expect(m.error).toEqual({ code: "expired", message: expect.stringContaining("EXPIRED") });
    expect(m.history.map((h) => h.status)).toEqual(["scheduled", "sent", "undelivered"]);
  });
});
