// npm run bench:fairness — fair shares between accounts (docs/ARCHITECTURE.md, "Fair shares"), simulator path.
//   lateness: account B's BENCH_FAIR_B (50) ordinary messages due at one instant, sent − scheduledAt (p50, p99,
//             max), in a quiet run (nothing else due) and behind account A's burst: BENCH_FAIR_BURST (10,000)
//             `high` messages due 0.5 s before B's; alternating rounds (BENCH_FAIR_ROUNDS, 2), with 1 and 2 worker
//             processes (BENCH_WORKERS, "1,2"). The goal: behind the burst within 2× quiet, or 1 s.
//   shares:   accounts weighted 3 and 1, BENCH_FAIR_BURST messages each due at one instant, 1 worker: each
//             account's share of the messages sent until the first of them had sent all of its own.
import { ensureAccount, updateAccount } from "../server/operator/index.js";
import { machine, percentile, resetData, scheduleMessages, startBenchDatabase, startWorkers, waitForCount, writeResult } from "./lib.js";

const BURST = Number(process.env.BENCH_FAIR_BURST ?? 10_000);
const B_MESSAGES = Number(process.env.BENCH_FAIR_B ?? 50);
const ROUNDS = Number(process.env.BENCH_FAIR_ROUNDS ?? 2);
const WORKERS = (process.env.BENCH_WORKERS ?? "1,2").split(",").filter(Boolean).map(Number);

const bench = await startBenchDatabase();
const { db } = bench;
const count = async (sql: string, bindings: unknown[] = []) => Number((await db.raw(sql, bindings)).rows[0].n);

/** B's lateness (ms, sorted) with `workers` worker processes, behind A's burst or alone. */
async function lateness(workers: number, burst: boolean): Promise<number[]> {
  await resetData(db);
  const a = (await ensureAccount(db, "bench-fair-a")).id;
  const b = (await ensureAccount(db, "bench-fair-b")).id;
  const procs = await startWorkers(workers, bench.url);
  const burstAt = new Date(Date.now() + 4000);
  const bAt = new Date(burstAt.getTime() + 500);
  if (burst) await scheduleMessages(db, { n: BURST, dueAt: () => burstAt, accountId: a, priority: () => "high" });
  await scheduleMessages(db, { n: B_MESSAGES, dueAt: () => bAt, accountId: b, to: (i) => `+1415559${String(1000 + i)}` });
  if (Date.now() >= burstAt.getTime()) throw new Error("the messages were due before they were all stored");
  const label = `B ${burst ? "behind the burst" : "quiet"}, ${workers} worker(s)`;
  await waitForCount(label, B_MESSAGES, () =>
    count("SELECT count(*) AS n FROM messages WHERE account_id = ? AND sent_at IS NOT NULL", [b]),
  );
  const { rows } = await db.raw(
    "SELECT EXTRACT(EPOCH FROM sent_at - scheduled_at) * 1000 AS ms FROM messages WHERE account_id = ? ORDER BY 1",
    [b],
  );
  await Promise.all(procs.map((p) => p.stop()));
  return rows.map((r: { ms: string }) => Number(r.ms));
}

/** Each account's share of what was sent while both had messages waiting, weights 3 and 1. */
async function shares() {
  await resetData(db);
  const heavy = (await ensureAccount(db, "bench-fair-heavy")).id;
  const light = (await ensureAccount(db, "bench-fair-light")).id;
  await updateAccount(db, heavy, { weight: 3 });
  await updateAccount(db, light, { weight: 1 });
  const procs = await startWorkers(1, bench.url);
  const at = new Date(Date.now() + 4000);
  await scheduleMessages(db, { n: BURST, dueAt: () => at, accountId: heavy });
  await scheduleMessages(db, { n: BURST, dueAt: () => at, accountId: light });
  await waitForCount("weights 3:1", BURST, () =>
    count("SELECT max(n) AS n FROM (SELECT count(*) AS n FROM messages WHERE sent_at IS NOT NULL GROUP BY account_id) c"),
  );
  const { rows } = await db.raw(
    `WITH first_done AS (SELECT min(last) AS at FROM (SELECT max(sent_at) AS last FROM messages GROUP BY account_id) l)
     SELECT count(*) FILTER (WHERE account_id = ?) AS heavy, count(*) FILTER (WHERE account_id = ?) AS light
       FROM messages, first_done WHERE sent_at <= first_done.at`,
    [heavy, light],
  );
  await Promise.all(procs.map((p) => p.stop()));
  const h = Number(rows[0].heavy);
  const l = Number(rows[0].light);
  return { heavy: h, light: l, heavyShare: Number((h / (h + l)).toFixed(3)), lightShare: Number((l / (h + l)).toFixed(3)) };
}

const summary = (sorted: number[]) => ({
  p50Ms: Math.round(percentile(sorted, 50)),
  p99Ms: Math.round(percentile(sorted, 99)),
  maxMs: Math.round(sorted.at(-1) ?? NaN),
});

try {
  const latenessBy: Record<string, unknown> = {};
  for (const workers of WORKERS) {
    const quiet: number[][] = [];
    const behind: number[][] = [];
    for (let round = 0; round < ROUNDS; round++) {
      quiet.push(await lateness(workers, false));
      behind.push(await lateness(workers, true));
    }
    const maxes = (runs: number[][]) => runs.map((r) => r.at(-1)!).sort((x, y) => x - y);
    const quietMax = percentile(maxes(quiet), 50);
    const behindMax = percentile(maxes(behind), 50);
    latenessBy[`workers${workers}`] = {
      quiet: summary(quiet.flat().sort((x, y) => x - y)),
      behindBurst: summary(behind.flat().sort((x, y) => x - y)),
      // The medians over rounds of B's latest message: the figure the goal is about.
      maxRatio: Number((behindMax / quietMax).toFixed(2)),
      goalMet: behindMax <= Math.max(2 * quietMax, 1000),
    };
  }
  writeResult("fairness", {
    machine: await machine(db),
    burst: BURST,
    bMessages: B_MESSAGES,
    rounds: ROUNDS,
    lateness: latenessBy,
    weights3to1: await shares(),
  });
} finally {
  await bench.stop();
}
