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
  it("records a window's carrier ids with its sent (one-part messages on their rows, no segment row), and applies its receipts a batch at a time as they are read, without a job each", async () => {
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
    // A one-part message keeps its carrier id on its row, written by its `sent` (migration 069): no statement
    // of its own, no segment row.
    expect(sent.filter((q) => /INSERT INTO smpp_segments/i.test(q.sql))).toEqual([]);
    expect(Number((await db("smpp_segments").whereIn("message_id", ids).count<{ count: string }[]>())[0]!.count)).toBe(0);
    const carrierIds = await db("messages").whereIn("id", ids).pluck("provider_message_id");
    expect(carrierIds.sort()).toEqual(
      smsc()
        .submits.slice(-200)
        .map((pdu) => smsc().idOf(pdu))
        .sort(),
    );

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
  });

  it("records a multipart message's segments in the statement of its sent, and waits for every segment's receipt", async () => {
    const { db } = server();
    const a = await server().account();
    sent = [];
    db.client.on("query", listen);
    const [id] = await insertMessages(db, a.accountId, [{ segments: 3 }]);
    await waitUntil("sent", async () => (await statuses([id!]))[0] === "sent");
    const withSegments = sent.filter((q) => /INSERT INTO smpp_segments/i.test(q.sql));
    expect(withSegments).toHaveLength(1);
    expect(withSegments[0]!.sql).toMatch(/UPDATE messages SET/);
    const segments = await db("smpp_segments").where({ message_id: id }).orderBy("seq").select("segment_id", "seq", "total");
    const pdus = smsc().submits.slice(-segments.length);
    expect(segments.map((s: { segment_id: string }) => s.segment_id)).toEqual(pdus.map((pdu) => smsc().idOf(pdu)));
    expect(segments.map((s: { total: number }) => s.total)).toEqual(segments.map(() => segments.length));
    expect(segments.length).toBeGreaterThan(1);
    for (const pdu of pdus.slice(0, -1)) await smsc().receipt(smsc().idOf(pdu), "DELIVRD");
    const last = pdus.at(-1)!;
    // Every segment but the last delivered: still sent. Then the last.
    await waitUntil(
      "the first segments' receipts recorded",
      async () =>
        Number((await db("smpp_segments").where({ message_id: id }).whereNotNull("stat").count<{ count: string }[]>())[0]!.count) ===
        pdus.length - 1,
    );
    expect(await statuses([id!])).toEqual(["sent"]);
    await smsc().receipt(smsc().idOf(last), "DELIVRD");
    await waitUntil("delivered", async () => (await statuses([id!]))[0] === "delivered");
  });

  it("still matches a one-part message sent before migration 069 by the segment row it has", async () => {
    const { db } = server();
    const a = await server().account();
    const [id] = await insertMessages(db, a.accountId, [{}]);
    await waitUntil("sent", async () => (await statuses([id!]))[0] === "sent");
    const carrierId = smsc().idOf(smsc().submits.at(-1)!);
    // As the release before wrote it: a segment row for every message, its id also on the message.
    await db("smpp_segments").insert({ segment_id: carrierId, message_id: id, provider_message_id: carrierId, seq: 1, total: 1 });
    await smsc().receipt(carrierId, "DELIVRD");
    await waitUntil("delivered", async () => (await statuses([id!]))[0] === "delivered");
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
