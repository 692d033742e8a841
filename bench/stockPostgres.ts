// npm run bench:stock-postgres — the delivery path on Debian's stock PostgreSQL (the server package, JIT on as
// packaged), side by side with the same server and `jit = off`, alternating, in one run.
//   BENCH_MESSAGES (2,000) messages due at one instant, 1 worker process, simulator without delay, every receipt
//   posted to a local receiver; then BENCH_REPORTS (a tenth) provider reports queued without an account (as the
//   previous release queued them), which the claim looks the account of up.
//   seconds: from the due time until the last report was applied and the last receipt arrived.
//   jitFunctions: what pg_stat_statements says was JIT-compiled meanwhile.
// Needs postgresql-NN (Debian) with its llvmjit.so; without it the benchmark says so and exits (fails under CI=true).
import { ensureAccount } from "../server/operator/index.js";
import { JOBS_CHANNEL } from "../server/db/jobs/index.js";
import { createDb, migrateLatest } from "../server/db/knex.js";
import { insertWebhook } from "../server/db/webhooks.js";
import { generateWebhookSecret } from "../server/domain/webhookSecrets.js";
import { debianServerHasJit, debianServerMajors, startDebianPostgres } from "../test/helpers/debianPostgres.js";
import { machine, resetData, scheduleMessages, startWorkers, waitForCount, writeResult } from "./lib.js";
import { startReceiver, type BenchReceiver } from "./receiver.js";

const N = Number(process.env.BENCH_MESSAGES ?? 2_000);
const REPORTS = Number(process.env.BENCH_REPORTS ?? Math.round(N / 10));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

const major = debianServerMajors().find(debianServerHasJit);
if (major === undefined) {
  const notice = "bench:stock-postgres needs Debian's PostgreSQL server with JIT (apt-get install postgresql-15)";
  if (process.env.CI === "true") throw new Error(notice);
  process.stderr.write(`SKIPPED: ${notice}\n`);
  process.exit(0);
}

const server = await startDebianPostgres(major, {
  max_connections: "200",
  shared_preload_libraries: "pg_stat_statements",
  "pg_stat_statements.track": "all",
});
const db = createDb(server.adminUrl, 10);
const count = async (sql: string) => Number((await db.raw(sql)).rows[0].n);

async function once(jit: "on" | "off"): Promise<{ seconds: number; jitFunctions: number }> {
  await resetData(db);
  await db("webhooks").del();
  await db.raw(`ALTER DATABASE postgres SET jit = ${jit}`);
  await db.raw("SELECT pg_stat_statements_reset()");
  const receiver = await startReceiver();
  const { id: accountId } = await ensureAccount(db, `bench-stock-${jit}`);
  await insertWebhook(db, accountId, { name: "bench", url: receiver.url, secret: generateWebhookSecret() });
  const [worker] = await startWorkers(1, server.adminUrl, { WEBHOOK_ALLOW_PRIVATE: "1" });
  try {
    return await measure(jit, accountId, receiver);
  } finally {
    await worker!.stop();
    receiver.close();
  }
}

async function measure(jit: string, accountId: string, receiver: BenchReceiver): Promise<{ seconds: number; jitFunctions: number }> {
  const due = new Date(Date.now() + 2000);
  await scheduleMessages(db, { n: N, dueAt: () => due, accountId });
  await waitForCount(`delivered, jit ${jit}`, N, () => count("SELECT count(*) AS n FROM messages WHERE status = 'delivered'"));
  await db.raw(
    `INSERT INTO jobs (id, kind, payload, run_at, max_attempts)
     SELECT gen_random_uuid(), 'provider_report', jsonb_build_object('providerMessageId', provider_message_id, 'status', 'delivered'), now(), 10
       FROM messages LIMIT ?`,
    [REPORTS],
  );
  await db.raw(`SELECT pg_notify(?, '')`, [JOBS_CHANNEL]);
  await waitForCount(
    `reports without an account, jit ${jit}`,
    REPORTS,
    async () => REPORTS - (await count("SELECT count(*) AS n FROM jobs WHERE kind = 'provider_report'")),
  );
  const reportsDone = Date.now();
  await waitForCount(`receipts, jit ${jit}`, 2 * N, async () => receiver.received);
  const seconds = (Math.max(reportsDone, receiver.lastArrival) - due.getTime()) / 1000;
  const jitFunctions = await count("SELECT coalesce(sum(jit_functions), 0) AS n FROM pg_stat_statements");
  return { seconds: Number(seconds.toFixed(2)), jitFunctions };
}

try {
  await migrateLatest(db);
  await db.raw("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  const runs: Record<"on" | "off", { seconds: number; jitFunctions: number }[]> = { on: [], off: [] };
  for (let round = 0; round < ROUNDS; round += 1) for (const jit of ["on", "off"] as const) runs[jit].push(await once(jit));
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const on = median(runs.on.map((r) => r.seconds));
  const off = median(runs.off.map((r) => r.seconds));
  writeResult("stock-postgres", {
    machine: await machine(db),
    postgres: `Debian PostgreSQL ${major}`,
    messages: N,
    reportsWithoutAccount: REPORTS,
    runs,
    medianSeconds: { jitOn: on, jitOff: off },
    jitOnOverOff: Number((on / off).toFixed(2)),
  });
} finally {
  await db.destroy();
  server.stop();
}
