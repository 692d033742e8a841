// Receipt ids written otherwise than the submit_sm_resp's (docs/SMPP.md, "Receipt ids"): an SMSC on 127.0.0.1
// answers submits with hexadecimal ids (upper case, leading zeros) and receipts them in decimal, in lower case,
// or without the zeros; every receipt matches its message. An id that is none of these stays unmatched.
import { describe, expect, it } from "vitest";
import { useTestServer } from "../helpers/server.js";
import { useSmppWorker } from "../helpers/smsc.js";
import { insertMessages } from "../helpers/throughput.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

const server = useTestServer({ ...fastWorkerConfig, provider: "smpp", smppMaxInFlight: 10, smppMaxPerSecond: 100_000 });
const { smsc } = useSmppWorker(server);

const statuses = async (ids: string[]) =>
  server()
    .db("messages")
    .whereIn("id", ids)
    .orderBy("id")
    .select<{ id: string; status: string; providerMessageId: string }[]>("id", "status", "provider_message_id as providerMessageId");

describe("receipt ids across formats", () => {
  it("matches receipts in decimal, lower case or without leading zeros to hexadecimal submit ids", async () => {
    const { db } = server();
    const a = await server().account();
    let next = 0x2f00;
    smsc().messageIdFor = () => `00${(next++).toString(16).toUpperCase()}`;
    const ids = await insertMessages(
      db,
      a.accountId,
      Array.from({ length: 9 }, () => ({})),
    );
    await waitUntil("every message sent", async () => (await statuses(ids)).every((m) => m.status === "sent"));
    const sent = await statuses(ids);
    // Three ways a carrier writes the id back, three messages each.
    const written = sent.map((m, i) => {
      const hex = m.providerMessageId;
      if (i % 3 === 0) return String(parseInt(hex, 16)); // decimal
      if (i % 3 === 1) return hex.toLowerCase(); // lower case, zeros kept
      return hex.replace(/^0+/, ""); // zeros dropped
    });
    expect(written[0]).toMatch(/^\d+$/);
    for (const id of written) expect((await smsc().receipt(id, "DELIVRD")).command_status).toBe(0);
    await waitUntil("every message delivered", async () => (await statuses(ids)).every((m) => m.status === "delivered"));
    expect(Number((await db("unmatched_receipts").count({ n: "*" }))[0]!.n)).toBe(0);
  });
});
