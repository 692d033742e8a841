// The SMPP path set-wise (docs/SMPP.md, "Set-wise"): a window's segments recorded in one statement, receipts read
// together stored in one transaction before their deliver_sm_resp, and applied a claimed batch at a time. Counted
// from the statements the worker sends (knex's "query" event, which prepared statements report too), against a
// real SMSC on 127.0.0.1.
import { afterEach, describe, expect, it } from "vitest";
import { useTestServer } from "../helpers/server.js";
import { useSmppWorker } from "../helpers/smsc.js";
import { insertMessages } from "../helpers/throughput.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

const server = useTestServer({ ...fastWorkerConfig, provider: "smpp", smppMaxInFlight: 10, smppMaxPerSecond: 100_000 });
const { smsc } = useSmppWorker(server);

interface Sent {
  sql: string;
  bindings?: unknown[];
}
let sent: Sent[] = [];
const listen = (q: Sent) => sent.push(q);
afterEach(() => {
  server().db.client.off("query", listen);
});

const statuses = async (ids: string[]) =>
  (await server().db("messages").whereIn("id", ids).select("status")).map((r: { status: string }) => r.status);

describe("the SMPP path, set-wise", () => {
  it("records a window's segments in one statement, and applies its receipts a batch at a time as they are read, without a job each", async () => {
    const { db } = server();
    const a = await server().account();
    sent = [];
    db.client.on("query", listen);
    const ids = await insertMessages(
      db,
      a.accountId,
      Array.from({ length: 200 }, () => ({})),
    );
    await waitUntil("every message sent", async () => (await statuses(ids)).every((s) => s === "sent"));
    const segmentInserts = sent.filter((q) => /INSERT INTO smpp_segments/i.test(q.sql)).length;
    // 200 messages in windows of at most 10: at least 20 windows, one statement each (per message: 200).
    expect(segmentInserts).toBeGreaterThanOrEqual(20);
    expect(segmentInserts).toBeLessThan(100);

    // The SMSC sends every receipt at once; each is acknowledged only once stored.
    const answers = await Promise.all(
      smsc()
        .submits.slice(-200)
        .map((pdu) => smsc().receipt(smsc().idOf(pdu), "DELIVRD")),
    );
    expect(answers.every((r) => r.command_status === 0)).toBe(true);
    await waitUntil("every message delivered", async () => (await statuses(ids)).every((s) => s === "delivered"));
    const receiptInserts = sent.filter(
      (q) => /insert into "?jobs"?/i.test(q.sql) && JSON.stringify(q.bindings).includes("smpp_receipt"),
    ).length;
    const applied = sent.filter((q) => /UPDATE smpp_segments/i.test(q.sql)).length;
    // Applied by the connection as they are read: no job per receipt (one statement per receipt before, then a
    // job each), a statement per batch.
    expect(receiptInserts).toBe(0);
    expect(applied).toBeGreaterThanOrEqual(1);
    expect(applied).toBeLessThan(100);
    // A message of one segment takes its status from the receipt: its segment row is left as the submit wrote it.
    const written = await db("smpp_segments").whereIn("message_id", ids).whereNotNull("stat").count<{ count: string }[]>();
    expect(Number(written[0]!.count)).toBe(0);
  });

  it("stores a batch it cannot apply at once as jobs before answering, and the jobs apply it", async () => {
    const { db } = server();
    const a = await server().account();
    // The first status change to delivered fails (a sequence is not rolled back with its transaction): the
    // connection's own attempt fails, the job's succeeds.
    await db.raw("CREATE SEQUENCE IF NOT EXISTS fail_first_delivery");
    await db.raw(`CREATE OR REPLACE FUNCTION fail_first_delivery() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.status = 'delivered' AND nextval('fail_first_delivery') = 1 THEN RAISE EXCEPTION 'the first delivery fails'; END IF;
        RETURN NEW;
      END $$`);
    await db.raw("CREATE TRIGGER fail_first_delivery BEFORE UPDATE ON messages FOR EACH ROW EXECUTE FUNCTION fail_first_delivery()");
    try {
      sent = [];
      db.client.on("query", listen);
      const [id] = await insertMessages(db, a.accountId, [{}]);
      await waitUntil("sent", async () => (await statuses([id!]))[0] === "sent");
      const answer = await smsc().receipt(smsc().idOf(smsc().submits.at(-1)!), "DELIVRD");
      expect(answer.command_status).toBe(0);
      const stored = sent.filter((q) => /insert into "?jobs"?/i.test(q.sql) && JSON.stringify(q.bindings).includes("smpp_receipt"));
      expect(stored.length).toBe(1);
      await waitUntil("delivered by the job", async () => (await statuses([id!]))[0] === "delivered");
    } finally {
      await db.raw("DROP TRIGGER fail_first_delivery ON messages");
    }
  });
});
