// The API's wake-ups (server/services/wakeUps.ts): a message stored on its own wakes the workers after its
// commit, with one NOTIFY for every message committed in the same turn, not one each; a message stored in a
// caller's transaction (an Idempotency-Key's) wakes them at that commit, from its statement.
import { afterEach, describe, expect, it } from "vitest";
import { wakeWorkersAfterCommit } from "../../server/services/wakeUps.js";
import { useTestServer } from "../helpers/server.js";
import { listenForWakeUps, type WakeUps } from "../helpers/wakeUps.js";

const server = useTestServer();
let wakeUps: WakeUps | undefined;
afterEach(async () => {
  await wakeUps?.close();
  wakeUps = undefined;
});

const send = (key: string, headers: Record<string, string> = {}) =>
  fetch(`${server().baseUrl}/api/v1/messages`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ to: "+14155550123", from: "ACME", body: "hello" }),
  });

describe("waking the workers for messages due now", () => {
  it("coalesces the wake-ups of one turn into one NOTIFY, for the earliest of them", async () => {
    wakeUps = await listenForWakeUps(server().url);
    const first = Date.now() - 1_000;
    for (let i = 0; i < 50; i++) wakeWorkersAfterCommit(server().db, new Date(first + i));
    // Beyond the NOTIFY horizon: no wake-up at all (the workers' timers and safety poll find it).
    wakeWorkersAfterCommit(server().db, new Date(Date.now() + 3600_000));
    await wakeUps.drained();
    expect(wakeUps.heard).toEqual([String(first)]);
  });

  it("POST /messages wakes the workers once its message is stored; with an Idempotency-Key, from its statement", async () => {
    const a = await server().account();
    wakeUps = await listenForWakeUps(server().url);
    const before = Date.now();
    const res = await send(a.key);
    expect(res.status).toBe(201);
    await wakeUps.drained();
    expect(wakeUps.heard).toHaveLength(1);
    const [at] = wakeUps.heard.map(Number);
    expect(at).toBeGreaterThanOrEqual(before - 1);
    expect(at).toBeLessThanOrEqual(Date.now());
    const job = await server()
      .db("jobs")
      .where({
        id: server()
          .db("messages")
          .select("job_id")
          .where({ id: ((await res.json()) as { messageId: string }).messageId }),
      })
      .first("state");
    // Stored before the wake-up was sent: a worker woken by it finds the job (none runs in this test).
    expect(job?.state).toBe("available");

    wakeUps.heard.length = 0;
    const keyed = await send(a.key, { "Idempotency-Key": "wake-ups-1" });
    expect(keyed.status).toBe(201);
    await wakeUps.drained();
    expect(wakeUps.heard).toHaveLength(1);
  });
});
