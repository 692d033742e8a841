// npm run bench:dispatch — how fast due messages reach `sent`, and how punctually.
//   throughput: 20,000 messages due at one instant, simulator with no delay, 1 and 2 worker processes;
//               messages/s from the due time until the last one is `sent`.
//   precision:  200 messages/s due over 10 s (2,000 messages), 1 worker: p50/p99/max of sentAt − scheduledAt.
import { machine, percentile, printTopStatements, resetData, scheduleMessages, startBenchDatabase, startWorkers, waitForCount, writeResult } from "./lib.js";

const N = Number(process.env.BENCH_MESSAGES ?? 20_000);
const bench = await startBenchDatabase();
const { db } = bench;
const sentCount = async () => Number((await db("messages").whereNotNull("sent_at").count({ n: "*" }))[0]!.n);

try {
  const throughput: Record<string, { messagesPerSecond: number; seconds: number }> = {};
  for (const workers of [1, 2]) {
    await resetData(db);
    const procs = await startWorkers(workers, bench.url);
    const due = new Date(Date.now() + 3000);
    await scheduleMessages(db, { n: N, dueAt: () => due });
    await waitForCount(`throughput, ${workers} worker(s)`, N, sentCount);
    const { rows } = await db.raw("SELECT EXTRACT(EPOCH FROM max(sent_at) - ?::timestamptz) AS s FROM messages", [due]);
    const seconds = Number(rows[0].s);
    throughput[`workers${workers}`] = { messagesPerSecond: Math.round(N / seconds), seconds: Number(seconds.toFixed(2)) };
    await printTopStatements(db, `throughput, ${workers} worker(s)`);
    await Promise.all(procs.map((p) => p.stop()));
  }

  await resetData(db);
  const procs = await startWorkers(1, bench.url);
  const start = Date.now() + 3000;
  const rate = 200;
  const total = rate * Number(process.env.BENCH_PRECISION_SECONDS ?? 10);
  await scheduleMessages(db, { n: total, dueAt: (i) => new Date(start + (i * 1000) / rate) });
  await waitForCount(`precision, 200 msg/s for ${total / rate} s`, total, sentCount);
  const { rows } = await db.raw("SELECT EXTRACT(EPOCH FROM sent_at - scheduled_at) * 1000 AS ms FROM messages ORDER BY 1");
  const lateness = rows.map((r: { ms: string }) => Number(r.ms));
  await Promise.all(procs.map((p) => p.stop()));

  writeResult("dispatch", {
    machine: await machine(db),
    messages: N,
    throughput,
    precision200PerSecond: {
      p50Ms: Math.round(percentile(lateness, 50)),
      p99Ms: Math.round(percentile(lateness, 99)),
      maxMs: Math.round(lateness.at(-1)),
      early: lateness.filter((ms: number) => ms < 0).length,
    },
  });
} finally {
  await bench.stop();
}
