// npm run bench:queue — our job runner alone versus graphile-worker 0.17.3, both draining 20,000 no-op jobs
// on the same PostgreSQL in the same run: concurrency 24, a local queue of 500 (graphile: localQueue.size
// 500, completeJobBatchDelay 0, failJobBatchDelay 0, logger silenced), 1 and 2 processes each. Rounds
// alternate between the two; each reports the median jobs/s from the insert's commit until the database
// shows every job done.
import { addNoopJobs, remainingJobs, startQueueWorkers, type QueueSystem } from "./queueWorkers.js";
import { machine, printTopStatements, progress, startBenchDatabase, writeResult } from "./lib.js";

const N = Number(process.env.BENCH_JOBS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const bench = await startBenchDatabase();
const { db } = bench;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function drain(system: QueueSystem, processes: number, round: number): Promise<number> {
  const workers = await startQueueWorkers(system, processes, bench.url);
  try {
    await addNoopJobs(system, db, bench.url, N);
    const started = Date.now();
    const bar = progress(`${system} ×${processes} round ${round}`, N);
    // Progress comes from the workers over IPC (free for the database); once every handler has run, the
    // database is polled until it records every job done (completions are written in batches).
    let ran = 0;
    while (ran < N) {
      if (Date.now() - started > 300_000) throw new Error(`${system}: ${ran} of ${N} jobs ran after 300 s`);
      await new Promise((r) => setTimeout(r, 10));
      ran = (await Promise.all(workers.map((w) => w.report()))).reduce((a, r) => a + r.count, 0);
      bar.update(ran);
    }
    while ((await remainingJobs(system, db)) > 0) await new Promise((r) => setTimeout(r, 5));
    bar.stop();
    await printTopStatements(db, `${system} ×${processes}`);
    const seconds = (Date.now() - started) / 1000;
    if (ran !== N) throw new Error(`${system}: ${ran} handler runs for ${N} jobs`);
    return N / seconds;
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await db.raw(system === "ours" ? "TRUNCATE jobs" : "TRUNCATE graphile_worker._private_jobs CASCADE");
  }
}

try {
  const results: Record<string, { ours: number; graphile: number; ratio: number }> = {};
  for (const processes of (process.env.BENCH_PROCESSES ?? "1,2").split(",").map(Number)) {
    const runs: Record<QueueSystem, number[]> = { ours: [], graphile: [] };
    for (let round = 1; round <= ROUNDS; round++) {
      // Alternate which goes first, so neither always runs on a warmer (or more tired) machine.
      const order: QueueSystem[] = round % 2 ? ["ours", "graphile"] : ["graphile", "ours"];
      for (const system of order) runs[system].push(await drain(system, processes, round));
    }
    const ours = Math.round(median(runs.ours));
    const graphile = Math.round(median(runs.graphile));
    results[`processes${processes}`] = { ours, graphile, ratio: Number((ours / graphile).toFixed(2)) };
  }
  writeResult("queue", { machine: await machine(db), jobs: N, rounds: ROUNDS, concurrency: 24, localQueue: 500, jobsPerSecond: results });
} finally {
  await bench.stop();
}
