// npm run bench:reporting — reports and exports on bench:history's database (BENCH_HISTORY_MESSAGES, default
// 5,000,000 messages of 50 accounts over 401 days, the first account a fifth of them), the counts kept by the
// triggers as the history is written:
// - reports: a 30-day daily report by status and by country for the big account, and the operator's by account,
//   through the API (p50/p95 of BENCH_REPORT_REQUESTS each), beside the same counts taken from the messages and
//   their history directly (the baseline the counts replace);
// - export: the big account's messages (a million by default) as CSV through the API, rows/s and the API
//   process's RSS growth, beside the same rows read through a cursor in this process (the ceiling).
// Targets (issue 36): report p95 ≤ 200 ms; export ≥ 50,000 rows/s with RSS growing < 100 MB.
import { readFileSync } from "node:fs";
import { compactMessageCounts } from "../server/db/messageCounts.js";
import { createOperatorKey } from "../server/operator/index.js";
import { buildHistory, prepareHistory } from "./historyData.js";
import { machine, percentile, serveProcess, startBenchDatabase, writeResult } from "./lib.js";

const N = Number(process.env.BENCH_HISTORY_MESSAGES ?? 5_000_000);
const REQUESTS = Number(process.env.BENCH_REPORT_REQUESTS ?? 50);

const bench = await startBenchDatabase();
const { db } = bench;
const side = await prepareHistory("reporting", bench, "http://127.0.0.1:9/");
const buildSeconds = await buildHistory(side, N);
for (let moved = -1; moved !== 0;) moved = await compactMessageCounts(db);
await db.raw("VACUUM ANALYZE");
const counts = Number((await db.raw("SELECT count(*) AS n FROM message_counts")).rows[0].n);
const operator = await createOperatorKey(db, "bench");
const api = await serveProcess("server/main.ts", bench.url, { ROLE: "api", RATE_LIMIT_PER_SECOND: "0" });

const until = new Date();
const since = new Date(until.getTime() - 30 * 86_400_000);
const window = `since=${since.toISOString()}&until=${until.toISOString()}`;

async function timed(key: string, query: string): Promise<{ p50: number; p95: number; rows: number }> {
  const ms: number[] = [];
  let rows = 0;
  for (let i = 0; i < REQUESTS + 3; i++) {
    const t0 = performance.now();
    const res = await fetch(`${api.url}/api/v1/reports/messages?${query}`, { headers: { Authorization: `Bearer ${key}` } });
    const body = (await res.json()) as { rows: unknown[] };
    if (res.status !== 200) throw new Error(`report answered ${res.status}: ${JSON.stringify(body)}`);
    if (i >= 3) ms.push(performance.now() - t0); // the first three warm the statement and the caches
    rows = body.rows.length;
  }
  ms.sort((a, b) => a - b);
  return { p50: Number(percentile(ms, 50).toFixed(1)), p95: Number(percentile(ms, 95).toFixed(1)), rows };
}

/** The same daily counts by status taken from the messages and their steps' times: what a report without counts does. */
async function direct(): Promise<{ p50: number; p95: number }> {
  const ms: number[] = [];
  for (let i = 0; i < Math.min(REQUESTS, 10) + 1; i++) {
    const t0 = performance.now();
    await db.raw(
      `SELECT day, event, count(*) FROM (
         SELECT (created_at AT TIME ZONE 'UTC')::date AS day, 'accepted' AS event FROM messages
          WHERE account_id = ? AND created_at >= ? AND created_at < ?
         UNION ALL
         SELECT (h.at AT TIME ZONE 'UTC')::date, h.status
           FROM messages m CROSS JOIN LATERAL (VALUES ('sent', m.sent_at),
                                                      (m.status, coalesce(m.delivered_at, m.failed_at, m.cancelled_at))) h(status, at)
          WHERE m.account_id = ? AND h.at >= ? AND h.at < ?) e
       GROUP BY 1, 2`,
      [side.bigAccountId, since, until, side.bigAccountId, since, until],
    );
    if (i >= 1) ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { p50: Number(percentile(ms, 50).toFixed(1)), p95: Number(percentile(ms, 95).toFixed(1)) };
}

const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;

async function exportThroughApi(): Promise<{ rows: number; seconds: number; rowsPerSecond: number; rssGrowthMiB: number }> {
  const pid = api.child.pid!;
  const before = rss(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rss(pid))), 50);
  const t0 = performance.now();
  const res = await fetch(`${api.url}/api/v1/exports/messages`, { headers: { Authorization: `Bearer ${side.key}` } });
  if (res.status !== 200) throw new Error(`export answered ${res.status}`);
  // Lines counted by their LF bytes (no body here holds a line break).
  let lines = 0;
  for await (const chunk of res.body!) for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const rows = lines - 1; // the header
  return {
    rows,
    seconds: Number(seconds.toFixed(2)),
    rowsPerSecond: Math.round(rows / seconds),
    rssGrowthMiB: Number(((peak - before) / 2 ** 20).toFixed(1)),
  };
}

/** The ceiling: the same rows read through a cursor here, 5,000 a fetch, nothing written. */
async function cursorCeiling(): Promise<{ rows: number; rowsPerSecond: number }> {
  const t0 = performance.now();
  let rows = 0;
  await db.transaction(async (tx) => {
    await tx.raw("DECLARE c NO SCROLL CURSOR FOR SELECT * FROM messages WHERE account_id = ? ORDER BY account_id, created_at, id", [
      side.bigAccountId,
    ]);
    for (let got = -1; got !== 0; rows += got) got = (await tx.raw("FETCH 5000 FROM c")).rows.length;
  });
  return { rows, rowsPerSecond: Math.round(rows / ((performance.now() - t0) / 1000)) };
}

const reports = {
  dayByStatus: await timed(side.key, `${window}&groupBy=day,status`),
  dayByCountry: await timed(side.key, `${window}&groupBy=day,country`),
  operatorDayByAccount: await timed(operator.key, `${window}&groupBy=day,account`),
  directFromMessages: await direct(),
};
const exported = await exportThroughApi();
const ceiling = await cursorCeiling();
const result = {
  machine: await machine(db),
  messages: N,
  buildSeconds,
  countRows: counts,
  reports,
  export: {
    ...exported,
    ceilingRowsPerSecond: ceiling.rowsPerSecond,
    ratioToCeiling: Number((exported.rowsPerSecond / ceiling.rowsPerSecond).toFixed(2)),
  },
  targets: {
    reportP95AtMost200ms: Math.max(reports.dayByStatus.p95, reports.dayByCountry.p95) <= 200,
    export50kRowsPerSecond: exported.rowsPerSecond >= 50_000,
    exportRssUnder100MiB: exported.rssGrowthMiB < 100,
  },
};
console.log(JSON.stringify(result));
writeResult("reporting", result);
api.child.kill("SIGTERM");
await bench.stop();
