// npm run bench:limit — the physical reference (bench/lifecycleCeiling.ts): the writes of a message's
// lifecycle by pgbench alone, 2 clients, once 1 message per transaction and once 100 (BENCH_LIMIT_BATCH).
// bench:dispatch runs the batched figure again in its own run and reports itself as a fraction of it.
import { hasPgbench, lifecycleCeiling } from "./lifecycleCeiling.js";
import { machine, startBenchDatabase, writeResult } from "./lib.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CLIENTS = 2;
const BATCH = Number(process.env.BENCH_LIMIT_BATCH ?? 100);

if (!hasPgbench()) {
  process.stderr.write("bench:limit needs pgbench (Debian: apt-get install postgresql-client)\n");
  process.exit(2);
}
const bench = await startBenchDatabase();
try {
  const single = await lifecycleCeiling(bench, { k: 1, seconds: SECONDS, clients: CLIENTS });
  const batched = await lifecycleCeiling(bench, { k: BATCH, seconds: SECONDS, clients: CLIENTS });
  writeResult("limit", {
    machine: await machine(bench.db),
    clients: CLIENTS,
    seconds: SECONDS,
    batchSize: BATCH,
    messagesPerSecond: { onePerTransaction: single, batched },
  });
} finally {
  await bench.stop();
}
