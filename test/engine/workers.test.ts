// Real worker processes (ROLE=worker npm start's entry point) sharing one database.
import { randomUUID } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { ensureAccount } from "../../server/operator/index.js";
import { countSubmissionsByMessage } from "../../server/db/simulatorSubmissions.js";
import { useTestDatabase } from "../helpers/database.js";
import { insertDueMessages } from "../helpers/messages.js";
import { submittedTwice, waitUntilSettled } from "../helpers/outcomes.js";
import { spawnWorkerProcess } from "../helpers/process.js";
import { waitUntil } from "../helpers/wait.js";

const database = useTestDatabase();

const started: ReturnType<typeof spawnWorkerProcess>[] = [];
const startWorker = (env: Record<string, string> = {}) => {
  const w = spawnWorkerProcess(database().url, env);
  started.push(w);
  return w;
};
// A test that fails before it stops its workers leaves none running into the next files.
afterEach(() => {
  for (const w of started.splice(0)) if (w.proc.child.exitCode === null && w.proc.child.signalCode === null) w.proc.child.kill("SIGKILL");
});

/** `n` messages due at `at` for a fresh account. */
async function scheduleMany(n: number, at: Date): Promise<string[]> {
  const { db } = database();
  const account = await ensureAccount(db, `workers-${randomUUID()}`);
  return insertDueMessages(db, account.id, n, { dueAt: () => at });
}

describe("worker processes", { timeout: 120_000 }, () => {
  it("3 workers send 2,000 due messages, each handed to the provider exactly once", async () => {
    const workers = [startWorker(), startWorker(), startWorker()];
    await Promise.all(workers.map((w) => w.ready));
    const ids = await scheduleMany(2000, new Date(Date.now() + 500));
    await waitUntilSettled(database().db, ids, 60_000, ["scheduled", "sending"]);
    const counts = await countSubmissionsByMessage(database().db);
    expect(ids.filter((id) => counts.get(id) !== 1)).toEqual([]);
    // Every send job finished (a job that succeeded is deleted), none is left claimed or waiting.
    expect(
      await database().db("jobs").whereIn("id", database().db("messages").whereIn("id", ids).select("job_id")).count({ n: "*" }),
    ).toEqual([{ n: 0 }]);
    for (const w of workers) w.proc.child.kill("SIGTERM");
    expect(await Promise.all(workers.map((w) => w.proc.exited))).toEqual([0, 0, 0]);
  });

  it("after SIGKILL of a worker holding claimed jobs, another worker completes them within 30 s", async () => {
    const a = startWorker({ SIMULATOR_SUBMIT_DELAY_MS: "300" });
    await a.ready;
    const ids = await scheduleMany(200, new Date());
    // Wait until the worker is inside provider calls: messages claimed (sending), their jobs held.
    const held = await waitUntil("messages being sent by the first worker", async () => {
      const rows = await database().db("messages").whereIn("id", ids).where({ status: "sending" }).count({ n: "*" });
      return Number(rows[0]!.n) >= 10 && Number(rows[0]!.n);
    });
    a.proc.child.kill("SIGKILL");
    const killedAt = Date.now();
    await a.proc.exited;
    expect(held).toBeGreaterThanOrEqual(10);

    // An outcome no report resolves (killed between the claim and the simulator's record) fails after 5 s.
    const b = startWorker({ SEND_OUTCOME_RESOLVE_MS: "5000" });
    await b.ready;
    await waitUntilSettled(database().db, ids, 40_000, ["scheduled", "sending", "sent"]);
    expect(Date.now() - killedAt).toBeLessThan(30_000);
    const statuses = await database().db("messages").whereIn("id", ids).select("id", "status", "outcome_unknown_at", "provider_message_id");
    // The scenario really happened: the killed worker's jobs were rescued, and a rescued send job that finds its
    // message in `sending` (on the wire) declares its outcome unknown (seen: 20).
    const unknown = statuses.filter((s) => s.outcome_unknown_at !== null);
    expect(unknown.length).toBeGreaterThan(0);
    // At most the killed worker's window: the rest of its claimed batch had not been claimed for the wire.
    expect(unknown.length).toBeLessThanOrEqual(100);
    // The simulator had them (it records a submission before the answer's latency), and its later reports
    // resolved them to their real status, with the simulator's id; nothing sent twice.
    const submitted = await database().db("simulator_submissions").whereIn("message_id", ids).select("message_id", "provider_message_id");
    const simulatorId = new Map(submitted.map((s) => [s.message_id, s.provider_message_id]));
    for (const s of unknown) {
      if (simulatorId.has(s.id)) expect([s.status, s.provider_message_id]).toEqual(["delivered", simulatorId.get(s.id)]);
      else expect(s.status).toBe("failed"); // never reached the simulator, and nothing says so: unknown
    }
    for (const s of statuses) if (s.outcome_unknown_at === null) expect(s.status).toBe("delivered");
    expect(await submittedTwice(database().db, ids)).toEqual([]);
    b.proc.child.kill("SIGTERM");
    expect(await b.proc.exited).toBe(0);
  });

  it("on SIGTERM under load a worker exits 0 within 10 s, leaves nothing claimed, and another finishes the rest", async () => {
    const a = startWorker({ SIMULATOR_SUBMIT_DELAY_MS: "200" });
    await a.ready;
    const ids = await scheduleMany(1000, new Date());
    await waitUntil("work in progress", async () => {
      const rows = await database().db("messages").whereIn("id", ids).where({ status: "sending" }).count({ n: "*" });
      return Number(rows[0]!.n) > 0;
    });
    const t0 = Date.now();
    a.proc.child.kill("SIGTERM");
    expect(await a.proc.exited, a.proc.output()).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
    const running = await database()
      .db("jobs")
      .where({ state: "running" })
      .whereLike("locked_by", `%:${a.proc.child.pid}:%`)
      .count({ n: "*" });
    expect(Number(running[0]!.n), a.proc.output().slice(-3000)).toBe(0);
    expect(await database().db("messages").whereIn("id", ids).where({ status: "sending" }).count({ n: "*" })).toEqual([{ n: 0 }]);

    const b = startWorker();
    await b.ready;
    await waitUntilSettled(database().db, ids, 30_000, ["scheduled", "sending"]);
    const counts = await countSubmissionsByMessage(database().db);
    expect(ids.filter((id) => counts.get(id) !== 1)).toEqual([]);
    b.proc.child.kill("SIGTERM");
    expect(await b.proc.exited).toBe(0);
  });
});
