// npm run bench:dispatch — how fast due messages reach `delivered`, and how punctually.
//   ceiling:    the batched pgbench lifecycle (bench/lifecycleCeiling.ts) in this same run, so the fraction
//               below compares figures from one machine state.
//   throughput: BENCH_MESSAGES (20,000) messages due at one instant, simulator with no delay, 1, 2 and 4
//               worker processes, every receipt (sent + delivered) posted to a local keep-alive receiver;
//               messages/s from the due time until the last is `delivered`, and until the last receipt arrived.
//   precision:  200 and 1,000 messages/s due over BENCH_PRECISION_SECONDS (10) s, 1 worker: p50/p99/max of
//               sentAt − scheduledAt; and graphile-worker 0.17.3's add→start latency for no-op jobs due at the
//               same rates, measured the same way (its own clock reading at start minus run_at).
//   accounts:   the same BENCH_MESSAGES spread evenly over each of BENCH_ACCOUNTS (1,1000,10000) accounts, all due at
//               one instant, 1 worker, no webhook, BENCH_ACCOUNT_ROUNDS (3) alternating rounds: the fair claim's
//               cost per account (each has due sends); the figure is the median rate and its ratio to 1 account.
//   BENCH_NO_WEBHOOK (unset): set, the account has no webhook, so the run measures the send path alone.
//   BENCH_OPT_OUTS (0): that many opt-out entries in the sending account (none of them a recipient), so the
//               send-time opt-out check is measured against a big list.
import { ensureAccount } from "../server/operator/index.js";
import { insertWebhook } from "../server/db/webhooks.js";
import { generateWebhookSecret } from "../server/domain/webhookSecrets.js";
import { hasPgbench, lifecycleCeiling } from "./lifecycleCeiling.js";
import {
  machine,
  percentile,
  printTopStatements,
  resetData,
  scheduleMessages,
  startBenchDatabase,
  startWorkers,
  waitForCount,
  writeResult,
} from "./lib.js";
import { addNoopJobs, startQueueWorkers } from "./queueWorkers.js";
import { startReceiver } from "./receiver.js";

const N = Number(process.env.BENCH_MESSAGES ?? 20_000);
const PRECISION_SECONDS = Number(process.env.BENCH_PRECISION_SECONDS ?? 10);
const OPT_OUTS = Number(process.env.BENCH_OPT_OUTS ?? 0);
const NO_WEBHOOK = Boolean(process.env.BENCH_NO_WEBHOOK);
const WORKERS = (process.env.BENCH_WORKERS ?? "1,2,4").split(",").filter(Boolean).map(Number); // "" = precision only
const ACCOUNTS = (process.env.BENCH_ACCOUNTS ?? "1,1000,10000").split(",").filter(Boolean).map(Number);
const ACCOUNT_ROUNDS = Number(process.env.BENCH_ACCOUNT_ROUNDS ?? 3);
const bench = await startBenchDatabase();
const { db } = bench;
const count = async (sql: string) => Number((await db.raw(sql)).rows[0].n);

/** Lateness percentiles 1..100 (for the chart) plus the summary. */
function distribution(sortedMs: number[]) {
  return {
    p50Ms: Math.round(percentile(sortedMs, 50)),
    p99Ms: Math.round(percentile(sortedMs, 99)),
    maxMs: Math.round(sortedMs.at(-1) ?? NaN),
    early: sortedMs.filter((ms) => ms < 0).length,
    percentilesMs: Array.from({ length: 100 }, (_v, i) => Math.round(percentile(sortedMs, i + 1))),
  };
}

/** Messages/s to delivered with the messages spread over k accounts, for each of ACCOUNTS, rounds alternating. */
async function acrossAccounts() {
  if (ACCOUNTS.length === 0) return {};
  const rates = new Map<number, number[]>(ACCOUNTS.map((k) => [k, []]));
  for (let round = 0; round < ACCOUNT_ROUNDS; round++) {
    for (const k of ACCOUNTS) {
      await resetData(db);
      await db.raw("DELETE FROM accounts WHERE name LIKE 'bench-spread-%'");
      const { rows } = await db.raw("INSERT INTO accounts (name) SELECT 'bench-spread-' || g FROM generate_series(1, ?) g RETURNING id", [
        k,
      ]);
      const ids: string[] = rows.map((r: { id: string }) => r.id);
      const procs = await startWorkers(1, bench.url);
      const due = new Date(Date.now() + 5000);
      await scheduleMessages(db, { n: N, dueAt: () => due, accountId: ids[0] });
      // Message i goes to account i mod k (jobs too: the claim reads jobs.account_id), before any is due.
      await db.raw(
        `WITH a AS (SELECT id, row_number() OVER () - 1 AS i FROM unnest(?::uuid[]) id),
              m AS (SELECT id, job_id, row_number() OVER (ORDER BY id) - 1 AS i FROM messages),
              moved AS (UPDATE messages SET account_id = a.id FROM m JOIN a ON a.i = m.i % ? WHERE messages.id = m.id RETURNING messages.job_id, messages.account_id)
         UPDATE jobs SET account_id = moved.account_id FROM moved WHERE jobs.id = moved.job_id`,
        [ids, k],
      );
      if (Date.now() >= due.getTime()) throw new Error("the messages were due before they were spread over the accounts");
      await waitForCount(`delivered, ${k} account(s)`, N, () => count("SELECT count(*) AS n FROM messages WHERE status = 'delivered'"));
      const seconds = Number(
        (await db.raw("SELECT EXTRACT(EPOCH FROM max(delivered_at) - ?::timestamptz) AS s FROM messages", [due])).rows[0].s,
      );
      rates.get(k)!.push(N / seconds);
      await printTopStatements(db, `dispatch, ${k} account(s)`);
      await Promise.all(procs.map((p) => p.stop()));
    }
  }
  const median = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  const one = median(rates.get(ACCOUNTS[0]!)!);
  return Object.fromEntries(
    ACCOUNTS.map((k) => [
      `accounts${k}`,
      {
        messagesPerSecond: Math.round(median(rates.get(k)!)),
        rounds: rates.get(k)!.map(Math.round),
        ratioToFirst: Number((median(rates.get(k)!) / one).toFixed(2)),
      },
    ]),
  );
}

try {
  // Not with BENCH_PG_EXPLAIN_MS: pgbench runs synchronously, and the server's log pipe would fill meanwhile.
  const ceiling =
    hasPgbench() && !process.env.BENCH_PG_EXPLAIN_MS ? await lifecycleCeiling(bench, { k: 100, seconds: 5, clients: 2 }) : null;

  const throughput: Record<string, { messagesPerSecond: number; seconds: number; receiptsDoneSeconds: number }> = {};
  for (const workers of WORKERS) {
    await resetData(db);
    await db("webhooks").del();
    const receiver = await startReceiver();
    const { id: accountId } = await ensureAccount(db, `bench-dispatch-${workers}`);
    if (!NO_WEBHOOK) await insertWebhook(db, accountId, { name: "bench", url: receiver.url, secret: generateWebhookSecret() });
    if (OPT_OUTS > 0)
      await db.raw(
        `INSERT INTO opt_outs (account_id, phone, source) SELECT ?, '+4479' || lpad(i::text, 8, '0'), 'api' FROM generate_series(1, ?) i
         ON CONFLICT DO NOTHING`,
        [accountId, OPT_OUTS],
      );
    const procs = await startWorkers(workers, bench.url, { WEBHOOK_ALLOW_PRIVATE: "1" });
    const due = new Date(Date.now() + 3000);
    await scheduleMessages(db, { n: N, dueAt: () => due, accountId });
    await waitForCount(`delivered, ${workers} worker(s)`, N, () => count("SELECT count(*) AS n FROM messages WHERE status = 'delivered'"));
    const delivered = Number(
      (await db.raw("SELECT EXTRACT(EPOCH FROM max(delivered_at) - ?::timestamptz) AS s FROM messages", [due])).rows[0].s,
    );
    if (!NO_WEBHOOK) await waitForCount(`receipts, ${workers} worker(s)`, 2 * N, async () => receiver.received);
    await printTopStatements(db, `dispatch, ${workers} worker(s)`);
    throughput[`workers${workers}`] = {
      messagesPerSecond: Math.round(N / delivered),
      seconds: Number(delivered.toFixed(2)),
      receiptsDoneSeconds: NO_WEBHOOK ? NaN : Number(((receiver.lastArrival - due.getTime()) / 1000).toFixed(2)),
    };
    await Promise.all(procs.map((p) => p.stop()));
    receiver.close();
  }

  const accounts = await acrossAccounts();

  const precision: Record<string, unknown> = {};
  for (const rate of PRECISION_SECONDS > 0 ? [200, 1000] : []) {
    const total = rate * PRECISION_SECONDS;
    await resetData(db);
    const procs = await startWorkers(1, bench.url);
    const start = Date.now() + 3000;
    await scheduleMessages(db, { n: total, dueAt: (i) => new Date(start + (i * 1000) / rate) });
    await waitForCount(`precision, ${rate} msg/s`, total, () => count("SELECT count(*) AS n FROM messages WHERE sent_at IS NOT NULL"));
    const { rows } = await db.raw("SELECT EXTRACT(EPOCH FROM sent_at - scheduled_at) * 1000 AS ms FROM messages ORDER BY 1");
    precision[`ours${rate}PerSecond`] = distribution(rows.map((r: { ms: string }) => Number(r.ms)));
    await Promise.all(procs.map((p) => p.stop()));

    const graphile = await startQueueWorkers("graphile", 1, bench.url);
    const gStart = Date.now() + 3000;
    await addNoopJobs("graphile", db, bench.url, total, (i) => new Date(gStart + (i * 1000) / rate));
    const delays: number[] = [];
    await waitForCount(`graphile add→start, ${rate}/s`, total, async () => {
      delays.push(...(await graphile[0]!.report()).startDelaysMs);
      return delays.length;
    });
    precision[`graphile${rate}PerSecond`] = distribution(delays.sort((a, b) => a - b));
    await Promise.all(graphile.map((w) => w.stop()));
    await db.raw("TRUNCATE graphile_worker._private_jobs CASCADE");
  }

  const best = Math.max(...Object.values(throughput).map((t) => t.messagesPerSecond));
  writeResult("dispatch", {
    machine: await machine(db),
    messages: N,
    optOuts: OPT_OUTS,
    ceilingMessagesPerSecond: ceiling,
    throughput,
    accounts,
    fractionOfCeiling: ceiling ? Number((best / ceiling).toFixed(2)) : null,
    precision,
  });
} finally {
  await bench.stop();
}
