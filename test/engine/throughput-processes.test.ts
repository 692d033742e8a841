// Throughput caps across real worker processes (ROLE=worker npm start's entry point) sharing one database: the
// caps live in PostgreSQL, not in a process, so two workers together stay under them. Counted at the simulator,
// whose books record every submission with its time. The tolerance (JITTER) is explained in throughput.test.ts.
import { describe, expect, it } from "vitest";
import { ensureAccount } from "../../server/operator/index.js";
import { updateAccountSettings } from "../../server/db/accountSettings.js";
import { useTestDatabase } from "../helpers/database.js";
import { spawnWorkerProcess } from "../helpers/process.js";
import { busiestSecond, insertMessages, submissionsOf, type Submission } from "../helpers/throughput.js";
import { waitUntil } from "../helpers/wait.js";

const database = useTestDatabase();
const JITTER = 0.6;

const startWorker = (env: Record<string, string> = {}) => spawnWorkerProcess(database().url, env);

function expectWithinCap(subs: Submission[], cap: number) {
  const largest = Math.max(...subs.map((s) => s.segments));
  const total = subs.reduce((n, s) => n + s.segments, 0);
  expect(busiestSecond(subs)).toBeLessThanOrEqual(cap + largest + Math.ceil(cap * JITTER));
  expect(subs.at(-1)!.at - subs[0]!.at).toBeGreaterThanOrEqual((total - largest) / cap - JITTER);
}

describe("throughput caps across worker processes", { timeout: 60_000 }, () => {
  it("two workers sharing an account's cap and the link's stay under both together", async () => {
    const { db } = database();
    const workers = [1, 2].map(() => startWorker({ PROVIDER_MAX_SEGMENTS_PER_SECOND: "40", THROUGHPUT_PACER_MS: "50" }));
    await Promise.all(workers.map((w) => w.ready));
    const capped = await ensureAccount(db, "capped");
    const other = await ensureAccount(db, "other");
    await updateAccountSettings(db, capped.id, { maxSegmentsPerSecond: 20 });
    // 60 segments for the capped account (3 s at its 20/s), 90 for the other (the link's 40/s is the limit: 150
    // segments take about 3.75 s).
    const due = new Date(Date.now() + 300);
    const a = await insertMessages(
      db,
      capped.id,
      Array.from({ length: 30 }, (_v, i) => ({ segments: (i % 3) + 1, dueAt: due })),
    );
    const b = await insertMessages(
      db,
      other.id,
      Array.from({ length: 90 }, () => ({ dueAt: due })),
    );

    // Which workers held send jobs while the messages went out: both, or the test would prove nothing.
    const holders = new Set<string>();
    await waitUntil(
      "every message submitted",
      async () => {
        const { rows } = await db.raw("SELECT DISTINCT locked_by FROM jobs WHERE kind = 'send_message' AND state = 'running'");
        for (const r of rows as { locked_by: string }[]) holders.add(r.locked_by.split(":")[1]!);
        return (await submissionsOf(db, [...a, ...b])).length === a.length + b.length;
      },
      30_000,
      10,
    );
    expect(holders).toEqual(new Set(workers.map((w) => String(w.proc.child.pid))));

    expectWithinCap(await submissionsOf(db, a), 20);
    expectWithinCap(await submissionsOf(db, [...a, ...b]), 40);
    // The simulator books a submission before its worker records the message sent: wait for those records, then
    // every message is sent or delivered (none failed, none left behind).
    const unfinished = () =>
      db("messages")
        .whereIn("id", [...a, ...b])
        .whereIn("status", ["scheduled", "sending"]);
    await waitUntil("every message recorded as sent", async () => (await unfinished()).length === 0, 10_000);
    const statuses = await db("messages")
      .whereIn("id", [...a, ...b])
      .whereNot({ status: "sent" })
      .whereNot({ status: "delivered" });
    expect(statuses).toEqual([]);

    for (const w of workers) w.proc.child.kill("SIGTERM");
    expect(await Promise.all(workers.map((w) => w.proc.exited))).toEqual([0, 0]);
  });
});
