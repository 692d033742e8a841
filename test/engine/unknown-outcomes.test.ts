// Unknown send outcomes (docs/RELIABILITY.md, "A crash costs at most what was on the wire"), through a real
// worker and the simulator wrapped in a provider that can lose its answers (as a dropped SMPP link does after
// the PDU was written) and hold a window on the wire:
// - only a window of messages is ever `sending`; the rest stay `scheduled` (cancellable) until their turn;
// - a lost answer keeps the message `scheduled` (internally `sending`, not cancellable) until the carrier's
//   later report, matched by destination, submit minute and text, resolves it: sent → delivered, with the
//   receipts its webhooks would have had;
// - without a report, or with one that matches two messages, it becomes failed / send_outcome_unknown after
//   SEND_OUTCOME_RESOLVE_MS; expired unmatched receipts are deleted by their chore.
import { afterAll, describe, expect, it } from "vitest";
import type { components } from "../../generated/api.js";
import { insertWebhook } from "../../server/db/webhooks.js";
import { generateWebhookSecret } from "../../server/domain/webhookSecrets.js";
import { deleteExpiredUnmatchedReceiptsChore, requeueReceiptsNowKnownChore } from "../../server/jobs/maintenance/chores.js";
import { SimulatorProvider } from "../../server/providers/simulator.js";
import { LosingProvider } from "../helpers/losingProvider.js";
import { startReceiver, type Receiver } from "../helpers/receiver.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const RESOLVE_MS = 8000;
const WINDOW = 2;

const server = useTestServer({ ...fastWorkerConfig, sendOutcomeResolveMs: RESOLVE_MS, simulatorDeliveryDelayMs: 50 });
let provider: LosingProvider;
useTestWorker(server, {
  get provider() {
    provider ??= new LosingProvider(new SimulatorProvider(server().db, 50), WINDOW);
    return provider;
  },
});
let receiver: Receiver | undefined;
afterAll(() => receiver?.close());

let numbering = 0;
const freshNumber = () => `+1415558${String(2000 + numbering++).padStart(4, "0")}`;

async function schedule(a: TestAccount, to: string, body = "the table is ready") {
  const { data, error } = await a.client.POST("/api/v1/messages", {
    body: { to, body, from: "ACME" },
  });
  if (!data) throw new Error(`schedule failed: ${JSON.stringify(error)}`);
  return data.messageId;
}
const message = async (a: TestAccount, messageId: string) =>
  (await a.client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId } } }))
    .data! as components["schemas"]["OutboundMessage"];
const inStatus = (a: TestAccount, id: string, status: string, timeoutMs = 20_000) =>
  waitUntil(`message ${id} ${status}`, async () => ((m) => m.status === status && m)(await message(a, id)), timeoutMs);
const declaredUnknown = (id: string) =>
  waitUntil(`outcome of ${id} declared unknown`, async () => {
    const row = await server().db("messages").where({ id }).first("status", "outcome_unknown_at");
    return row.outcome_unknown_at !== null && row;
  });

describe("unknown send outcomes", () => {
  it("only a window of messages is on the wire: the rest stay scheduled and cancellable until their turn", async () => {
    const a = await server().account();
    const numbers = Array.from({ length: 6 }, freshNumber);
    let release!: () => void;
    provider.hold = new Promise<void>((r) => (release = r));
    const callsBefore = provider.calls;
    const ids = await Promise.all(numbers.map((n) => schedule(a, n)));
    let waiting!: { id: string; submitted_at: Date | null };
    try {
      // Held: the window fills (batches take the free slots) and stays full; nothing more is claimed.
      const rows = await waitUntil("a full window handed to the provider", async () => {
        const all = await server().db("messages").whereIn("id", ids).select("id", "status", "submitted_at");
        return provider.calls > callsBefore && all.filter((r) => r.status !== "scheduled").length === WINDOW && all;
      });
      for (const r of rows.filter((r) => r.status !== "scheduled")) {
        expect(r.status).toBe("sending");
        expect(r.submitted_at).not.toBeNull();
      }
      const waitingRows = rows.filter((r) => r.status === "scheduled");
      expect(waitingRows).toHaveLength(numbers.length - WINDOW);
      waiting = waitingRows[0]!;
      expect(waiting.submitted_at).toBeNull();
      const cancel = await a.client.DELETE("/api/v1/scheduler/cancel/{messageId}", { params: { path: { messageId: waiting.id } } });
      expect(cancel.response.status).toBe(200);
    } finally {
      provider.hold = undefined;
      release();
    }
    for (const id of ids) await inStatus(a, id, id === waiting.id ? "cancelled" : "delivered");
    const submissions = await server().db("simulator_submissions").whereIn("message_id", ids).select("message_id");
    expect(submissions.map((s) => s.message_id).sort()).toEqual(ids.filter((id) => id !== waiting.id).sort());
  });

  it("a lost answer is resolved by the carrier's later report: sent, then its status, with every receipt", async () => {
    const a = await server().account();
    receiver = await startReceiver();
    await insertWebhook(server().db, a.accountId, { name: "unknown", url: receiver.url, secret: generateWebhookSecret() });
    const to = freshNumber();
    provider.losing.add(to);
    const id = await schedule(a, to);
    const row = await declaredUnknown(id);
    expect(row.status).toBe("sending");
    const delivered = await inStatus(a, id, "delivered", RESOLVE_MS);
    const submission = await server().db("simulator_submissions").where({ message_id: id }).first();
    expect(delivered.providerMessageId).toBe(submission.provider_message_id);
    expect(delivered.history.map((h) => h.status)).toEqual(["scheduled", "sent", "delivered"]);
    expect(delivered.error).toBeNull();
    const events = await receiver.waitFor("dlr.sent and dlr.delivered", (all) => all.filter((r) => r.json.messageId === id).length >= 2);
    expect(events.filter((r) => r.json.messageId === id).map((r) => r.json.event)).toEqual(["dlr.sent", "dlr.delivered"]);
    expect(Number((await server().db("unmatched_receipts").where({ destination: to }).count({ n: "*" }))[0]!.n)).toBe(0);
  });

  it("without a report, or with reports two messages match, stays scheduled (not cancellable) and then fails as unknown", async () => {
    const a = await server().account();
    const silent = "+14165550003"; // the simulator sends no report for numbers ending in 0003
    const twin = freshNumber();
    for (const n of [silent, twin]) provider.losing.add(n);
    const silentId = await schedule(a, silent);
    const twins = await Promise.all([schedule(a, twin, "same text"), schedule(a, twin, "same text")]);
    const declared = await declaredUnknown(silentId);
    const shown = await message(a, silentId);
    expect(shown.status).toBe("scheduled");
    const cancel = await a.client.DELETE("/api/v1/scheduler/cancel/{messageId}", { params: { path: { messageId: silentId } } });
    expect(cancel.response.status).toBe(409);
    // Both twins' reports arrive and are kept, but each matches both messages: neither is resolved.
    await waitUntil("both twin reports kept", async () =>
      Number((await server().db("unmatched_receipts").where({ destination: twin }).count({ n: "*" }))[0]!.n) === 2 ? true : undefined,
    );
    for (const id of [silentId, ...twins]) {
      const failed = await inStatus(a, id, "failed", RESOLVE_MS * 3);
      expect(failed.error?.code).toBe("send_outcome_unknown");
      expect(failed.history.map((h) => h.status)).toEqual(["scheduled", "failed"]);
    }
    const failedAt = await server().db("messages").where({ id: silentId }).first({ at: "failed_at" });
    expect(failedAt.at.getTime() - declared.outcome_unknown_at.getTime()).toBeGreaterThanOrEqual(RESOLVE_MS - 1000);
  });

  it("a report kept because its id was unknown still reaches its message when the answer is recorded later", async () => {
    const a = await server().account();
    const to = freshNumber();
    const kept = async () => Number((await server().db("unmatched_receipts").where({ destination: to }).count({ n: "*" }))[0]!.n);
    let release!: () => void;
    provider.holdAnswers = new Promise<void>((r) => (release = r));
    let id: string;
    try {
      id = await schedule(a, to);
      // The carrier got it and reported at once; the answer (its id) is not recorded yet, so after a few lookups
      // the report is kept as unmatched. It matches no unknown outcome: the message is still simply on the wire.
      await waitUntil("the report kept as unmatched", async () => (await kept()) === 1, 20_000);
    } finally {
      provider.holdAnswers = undefined;
      release();
    }
    await inStatus(a, id, "sent");
    // The chore (run here directly; the leader runs it every 2 s) sees the id is known now and queues the
    // report again, which delivers the message.
    const chore = requeueReceiptsNowKnownChore(server().db);
    const delivered = await waitUntil(`message ${id} delivered`, async () => {
      await chore.runOnce();
      const m = await message(a, id);
      return m.status === "delivered" && m;
    });
    expect(delivered.history.map((h) => h.status)).toEqual(["scheduled", "sent", "delivered"]);
    expect(await kept()).toBe(0);
  });

  it("deletes receipts kept longer than twice the resolution time", async () => {
    const db = server().db;
    const row = (receivedAgoMs: number, destination: string) => ({
      link: "simulator",
      provider_message_id: `expiry-${destination}`,
      status: "delivered",
      destination,
      at: new Date(),
      received_at: new Date(Date.now() - receivedAgoMs),
    });
    await db("unmatched_receipts").insert([row(2 * RESOLVE_MS + 60_000, "+14155550990"), row(0, "+14155550991")]);
    expect(await deleteExpiredUnmatchedReceiptsChore(db, RESOLVE_MS).runOnce()).toBeGreaterThanOrEqual(1);
    expect(await db("unmatched_receipts").whereIn("destination", ["+14155550990", "+14155550991"]).pluck("destination")).toEqual([
      "+14155550991",
    ]);
  });
});
