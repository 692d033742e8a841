// A routed window is claimed without the on-the-wire mark, and marked by assignConnectors after every wait,
// just before its writes (docs/RELIABILITY.md, "A crash costs at most what was on the wire"). So a worker that
// dies between the claim and the mark leaves messages certainly never written: the next worker sends them,
// instead of declaring their outcome unknown and failing them. A marked one is still an unknown outcome; and a
// worker that lost its job's lease marks (and so writes) nothing. The dead worker is written into the database
// as it leaves it: the message in `sending`, its job's lease run out.
import { describe, expect, it } from "vitest";
import { JOBS_CHANNEL } from "../../server/db/jobs/index.js";
import { assignConnectors } from "../../server/db/messages/index.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig, useTestWorker } from "../helpers/worker.js";

const server = useTestServer({ ...fastWorkerConfig, sendOutcomeResolveMs: 3_600_000 });
useTestWorker(server);

/** A message scheduled an hour ahead, then left by a dead worker in `sending`, its job due now. */
async function leftInSending(a: TestAccount, to: string, marked: boolean, due = true): Promise<string> {
  const res = await a.request("POST", "/api/v1/scheduler/schedule", {
    to,
    from: "ACME",
    body: "left behind",
    scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
  });
  const { messageId, jobId } = (await res.json()) as { messageId: string; jobId: string };
  const { db } = server();
  await db("messages")
    .where({ id: messageId })
    .update({ status: "sending", submitted_at: marked ? db.fn.now() : null });
  if (due) {
    await db("jobs").where({ id: jobId }).update({ run_at: db.fn.now() });
    await db.raw(`NOTIFY ${JOBS_CHANNEL}`);
  }
  return messageId;
}

const messageOf = async (a: TestAccount, id: string) =>
  (await (await a.request("GET", `/api/v1/messages/${id}`)).json()) as { status: string; error: { code: string } | null };

describe("a routed window's claim and its mark", () => {
  it("claimed but never marked: sent by the next worker; marked: an unknown outcome, not sent again", async () => {
    const { request } = await server().operator();
    const { data } = (await (await request("GET", "/api/v1/connectors")).json()) as { data: { connectorId: string; name: string }[] };
    const first = data.find((c) => c.name === "default")!.connectorId;
    const { version } = (await (await request("GET", "/api/v1/routes")).json()) as { version: number };
    // A route that matches some messages only: every window is routed (no single connector takes all).
    const routes = [{ name: "us", match: { prefixes: ["+1"] }, connectors: [{ connectorId: first }] }];
    expect((await request("PUT", "/api/v1/routes", { version, routes })).status).toBe(200);

    const a = await server().account();
    const unwritten = await leftInSending(a, "+14155550401", false);
    const written = await leftInSending(a, "+14155550402", true);
    const sent = await waitUntil("the unwritten one sent", async () => {
      const m = await messageOf(a, unwritten);
      return ["sent", "delivered"].includes(m.status) && m;
    });
    expect(sent.error).toBeNull();
    const simulated = await server().db("simulator_submissions").whereIn("message_id", [unwritten, written]).pluck("message_id");
    expect(simulated).toEqual([unwritten]);
    // The marked one: maybe at the provider, so not written again; shown as scheduled while it waits for a receipt.
    const unknown = await waitUntil("the written one's outcome declared unknown", async () => {
      const row = await server().db("messages").where({ id: written }).first("status", "outcome_unknown_at");
      return row.outcome_unknown_at !== null && row;
    });
    expect(unknown.status).toBe("sending");
  });

  it("a worker that lost its job's lease marks nothing, so writes nothing", async () => {
    const a = await server().account();
    const id = await leftInSending(a, "+14155550403", false, false);
    const { db } = server();
    const row = await db("messages").where({ id }).first("account_id");
    // Its job is not held by "gone" (no worker holds it).
    const target = { id, accountId: row.account_id, connectorId: (await db("connectors").first("id")).id, link: "simulator", write: true };
    expect(await assignConnectors(db, [target], "gone")).toEqual(new Set());
    expect(await db("messages").where({ id }).first("submitted_at")).toEqual({ submitted_at: null });
  });
});
