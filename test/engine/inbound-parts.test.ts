// Long inbound messages whose parts reach two workers at once (two SMPP sessions): the parts of each message are
// stored by two processes' connection pools concurrently, and every message is still assembled exactly once.
import { afterAll, describe, expect, it } from "vitest";
import { ensureAccount } from "../../server/operator/index.js";
import { createDb } from "../../server/db/knex.js";
import { createLogger } from "../../server/logger.js";
import { receiveInboundPart } from "../../server/services/inboundParts.js";
import { useTestDatabase } from "../helpers/database.js";
import { waitUntil } from "../helpers/wait.js";

const OPTS = { reassemblyTimeoutMs: 60_000, autoReplyMaxPerHour: 100 };

const database = useTestDatabase();
const pools: ReturnType<typeof createDb>[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.destroy()));
});

describe("reassembling inbound parts", () => {
  it("the last parts stored at once by two workers: each message assembled exactly once, no part left waiting", async () => {
    const { db, url } = database();
    const account = await ensureAccount(db, "inbound-parts-race");
    await db("numbers").insert({ account_id: account.id, phone_number: "+14155550700" });
    const workers = [createDb(url, 8), createDb(url, 8)];
    pools.push(...workers);
    const log = createLogger("silent");
    const MESSAGES = 40;
    const part = (reference: number, seq: number) => ({
      from: "+14155550701",
      to: "+14155550700",
      reference,
      total: 2,
      seq,
      body: `<${reference}.${seq}>`,
      encoding: "GSM-7" as const,
    });
    // Part 1 of each message through one worker, part 2 through the other, all at the same time.
    await Promise.all(
      Array.from({ length: MESSAGES }, (_, ref) => [
        receiveInboundPart(workers[0]!, log, part(ref, 1), OPTS),
        receiveInboundPart(workers[1]!, log, part(ref, 2), OPTS),
      ]).flat(),
    );
    const stored = await db("messages").where({ account_id: account.id, direction: "inbound" }).select("body", "incomplete", "segments");
    expect(stored.map((m) => m.body as string).sort()).toEqual(Array.from({ length: MESSAGES }, (_, ref) => `<${ref}.1><${ref}.2>`).sort());
    expect(stored.every((m) => m.incomplete === false && m.segments === 2)).toBe(true);
    expect(await db("inbound_parts").whereNull("assembled_at")).toEqual([]);
  });

  it("a part resent after its message was stored is dropped; once the key is older than the timeout it is a new message", async () => {
    const { db } = database();
    const account = await ensureAccount(db, "inbound-parts-resent");
    await db("numbers").insert({ account_id: account.id, phone_number: "+14155550710" });
    const log = createLogger("silent");
    const part = (seq: number, text: string) => ({
      from: "+14155550711",
      to: "+14155550710",
      reference: 77,
      total: 2,
      seq,
      body: text,
      encoding: "GSM-7" as const,
    });
    const bodies = async () =>
      (await db("messages").where({ account_id: account.id }).orderBy("created_at").select("body")).map((m) => m.body);
    await receiveInboundPart(db, log, part(1, "first "), OPTS);
    await receiveInboundPart(db, log, part(2, "message"), OPTS);
    await receiveInboundPart(db, log, part(1, "first "), OPTS); // the SMSC resends: our ack was lost
    expect(await bodies()).toEqual(["first message"]);
    expect(await db("inbound_parts").whereNull("assembled_at")).toEqual([]);
    // The carrier reuses reference 77 for a new message once the old key is past the timeout (here 1 ms).
    await waitUntil("the stored key older than 1 ms", async () => {
      const { rows } = await db.raw(
        "SELECT bool_and(now() - assembled_at > interval '1 millisecond') AS old FROM inbound_parts WHERE sender = '+14155550711'",
      );
      return rows[0].old === true;
    });
    await receiveInboundPart(db, log, part(1, "second "), { ...OPTS, reassemblyTimeoutMs: 1 });
    await receiveInboundPart(db, log, part(2, "one"), OPTS);
    expect(await bodies()).toEqual(["first message", "second one"]);
  });
});
