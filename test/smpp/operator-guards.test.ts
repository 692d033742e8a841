// The operator's guards at send time, on an SMPP deployment with an SMSC on 127.0.0.1: a test key's messages go
// through the simulator and never reach the SMSC; a suspended account's messages wait until it is reinstated;
// a message from a number its account no longer holds fails sender_not_allowed at its time.
import { describe, expect, it } from "vitest";
import type { components } from "../../generated/api.js";
import { useTestServer, type TestAccount } from "../helpers/server.js";
import { useSmppWorker } from "../helpers/smsc.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

const server = useTestServer({ ...fastWorkerConfig, provider: "smpp", smppMaxPerSecond: 200 });
const { smsc } = useSmppWorker(server);

const soon = () => new Date(Date.now() + 500).toISOString();
const message = async (a: TestAccount, id: string) =>
  (await a.client.GET("/api/v1/messages/{messageId}", { params: { path: { messageId: id } } }))
    .data! as components["schemas"]["OutboundMessage"];
const inStatus = (a: TestAccount, id: string, status: string) =>
  waitUntil(`message ${id} ${status}`, async () => {
    const m = await message(a, id);
    return m.status === status && m;
  });

async function schedule(key: string, body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${server().baseUrl}/api/v1/scheduler/schedule`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify({ from: "ACME", body: "code 1234", scheduledAt: soon(), ...body }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { messageId: string }).messageId;
}

describe("guards at send time", () => {
  it("a test key's message is delivered by the simulator and never reaches the SMSC; a real one does", async () => {
    const a = await server().account();
    await a.request("POST", "/api/v1/webhooks", { name: "receipts", url: "http://127.0.0.1:9/dlr" });
    const testKey = (await (await a.request("POST", "/api/v1/keys", { test: true })).json()) as { key: string };
    const test = await schedule(testKey.key, { to: "+14155550601" });
    const real = await schedule(a.key, { to: "+14155550602" });
    const delivered = await inStatus(a, test, "delivered");
    expect(delivered.test).toBe(true);
    expect(delivered.providerMessageId).toMatch(/^sim-/);
    // Its receipts say so; the real message's do not.
    const receipts = await server().db("webhook_deliveries").where({ message_id: test }).pluck("body");
    expect(receipts.map((b: string) => JSON.parse(b) as { event: string; test?: boolean })).toEqual([
      expect.objectContaining({ event: "dlr.sent", test: true }),
      expect.objectContaining({ event: "dlr.delivered", test: true }),
    ]);
    await inStatus(a, real, "sent");
    const realReceipts = await server().db("webhook_deliveries").where({ message_id: real }).pluck("body");
    expect(realReceipts.map((b: string) => JSON.parse(b) as { test?: boolean })).toEqual([expect.not.objectContaining({ test: true })]);
    const destinations = smsc().submits.map((p) => p.destination_addr);
    expect(destinations).toContain("14155550602");
    expect(destinations).not.toContain("14155550601");
  });

  it("a suspended account's due message waits, and goes once the account is reinstated", async () => {
    const op = await server().operator();
    const a = await server().account();
    const id = await schedule(a.key, { to: "+14155550611", scheduledAt: new Date(Date.now() + 60_000).toISOString() });
    const { jobId } = await message(a, id);
    await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, { suspended: true });
    await server().db("jobs").where({ id: jobId }).update({ run_at: new Date() }); // due now
    // The worker takes the job, finds the account suspended and puts it off: the job's next run is later.
    await waitUntil("the send job put off", async () => {
      const job = await server().db("jobs").where({ id: jobId }).first("run_at", "state");
      return job && job.state !== "running" && new Date(job.run_at as Date).getTime() > Date.now() + 5_000;
    });
    expect((await server().db("messages").where({ id }).first("status")).status).toBe("scheduled");
    expect(smsc().submits.map((p) => p.destination_addr)).not.toContain("14155550611");
    await op.request("PATCH", `/api/v1/accounts/${a.accountId}`, { suspended: false });
    await server().db("jobs").where({ id: jobId }).update({ run_at: new Date() }); // its recheck, now
    await inStatus(a, id, "sent");
  });

  it("a message from a number its account no longer holds fails sender_not_allowed at its time", async () => {
    const op = await server().operator();
    const a = await server().account();
    const numberId = await a.holds("+14155550621");
    const id = await schedule(a.key, {
      to: "+14155550622",
      from: "+14155550621",
      scheduledAt: new Date(Date.now() + 60_000).toISOString(),
    });
    expect((await op.request("DELETE", `/api/v1/accounts/${a.accountId}/numbers/${numberId}`)).status).toBe(204);
    await server().db("jobs").where({ account_id: a.accountId, kind: "send_message" }).update({ run_at: new Date() });
    const failed = await inStatus(a, id, "failed");
    expect(failed.error).toMatchObject({ code: "sender_not_allowed" });
    expect(smsc().submits.map((p) => p.destination_addr)).not.toContain("14155550622");
  });
});
