// npm run bench:history — do the hot paths cost the same after a long history? Two PostgreSQL clusters side by
// side, same settings, same accounts and webhooks: one all but empty (BENCH_HISTORY_EMPTY_MESSAGES, 5,000, so its
// lists return full pages), one holding BENCH_HISTORY_MESSAGES messages
// (default 5,000,000) of 50 accounts (one with a fifth of them) over the last 401 days, written in SQL with
// their two history entries and two receipt deliveries to one webhook each. Measured on both, alternating:
// schedule (API alone; API and worker in one process), list pages (first, 200 deep, filtered, searched), get by
// id, the claim of 20,000 due messages to delivered with receipts (and the WAL it writes; BENCH_WAL_BLOCKS=1 says
// to which relations), and the API's p99 while the retention job deletes the oldest day. Reports every ratio full/empty (target ≤ 1.3) and the storage per
// message.
import type { ChildProcess } from "node:child_process";
import autocannon from "autocannon";
import { applyRetention } from "../server/jobs/maintenance/applyRetention.js";
import {
  machine,
  percentile,
  scheduleMessages,
  scheduleRequest,
  serveProcess,
  startBenchDatabase,
  startWorkers,
  writeResult,
} from "./lib.js";
import { startReceiver } from "./receiver.js";
import { ACCOUNTS, DAYS, buildHistory, prepareHistory, type Side } from "./historyData.js";

const N = Number(process.env.BENCH_HISTORY_MESSAGES ?? 5_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const DUE = Number(process.env.BENCH_HISTORY_DUE ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// The "empty" side holds a small history built the same way, so that every list it is asked for returns a full
// page (the campaign's, the big account's) and the two sides compare the same work, not 50 rows against none.
const EMPTY_N = Number(process.env.BENCH_HISTORY_EMPTY_MESSAGES ?? 5_000);

const receiver = await startReceiver();

async function storage(side: Side) {
  const { rows } = await side.bench.db.raw(
    `SELECT relname AS table, pg_total_relation_size(oid)::bigint AS bytes
       FROM pg_class WHERE relname IN ('messages', 'webhook_deliveries')`,
  );
  const bytes = Object.fromEntries(rows.map((r: { table: string; bytes: string }) => [r.table, Number(r.bytes)]));
  const total = Object.values(bytes).reduce((a: number, b) => a + (b as number), 0);
  return { bytes, bytesPerMessage: Math.round(total / N) };
}

type Load = { rps: number; p50: number; p99: number; non2xx: number };
async function scheduleLoad(url: string, key: string): Promise<Load> {
  const r = await autocannon({
    url,
    connections: 32,
    duration: SECONDS,
    requests: [scheduleRequest(key)],
  });
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx };
}

type Latency = { p50: number; p99: number };
const summarise = (ms: number[]): Latency => {
  ms.sort((a, b) => a - b);
  return { p50: Number(percentile(ms, 50).toFixed(2)), p99: Number(percentile(ms, 99).toFixed(2)) };
};

/**
 * `times` sequential GETs on each side, alternating full and empty request by request, so both see the same
 * load from whatever else the machine runs. `paths(side)` gives each side's paths, used in turn.
 */
async function readLatency(servers: Served[], paths: (s: Served) => string[], times = 200): Promise<Latency[]> {
  const ms: number[][] = servers.map(() => []);
  const lists = servers.map(paths);
  for (let i = 0; i < times; i++) {
    for (const [k, s] of servers.entries()) {
      const path = lists[k]![i % lists[k]!.length]!;
      const t = performance.now();
      const res = await fetch(s.url + path, { headers: { authorization: `Bearer ${s.side.key}` } });
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
      await res.arrayBuffer();
      ms[k]!.push(performance.now() - t);
    }
  }
  return ms.map(summarise);
}

interface Served {
  side: Side;
  url: string;
}

async function reads(servers: Served[]) {
  const get = async (s: Served, path: string) =>
    (await (await fetch(s.url + path, { headers: { authorization: `Bearer ${s.side.key}` } })).json()) as {
      data: { messageId: string }[];
      nextCursor: string | null;
    };
  // Page 200 of the big account's list: walk the cursor chain once, then read that page (full side only: the
  // empty one has fewer pages; its first page stands in).
  const page200 = new Map<Served, string>();
  const recent = new Map<Served, string[]>();
  for (const s of servers) {
    let cursor: string | null = null;
    for (let page = 1; page < 200; page++) {
      const body = await get(s, `/api/v1/messages?limit=50${cursor ? `&cursor=${cursor}` : ""}`);
      if (!body.nextCursor) break;
      cursor = body.nextCursor;
    }
    page200.set(s, `/api/v1/messages?limit=50${cursor ? `&cursor=${cursor}` : ""}`);
    recent.set(
      s,
      (await get(s, "/api/v1/messages?limit=100")).data.map((m) => `/api/v1/messages/${m.messageId}`),
    );
  }
  const m = (p: string) => `/api/v1/messages?limit=50&${p}`;
  const measured: Record<string, Latency[]> = {
    firstPage: await readLatency(servers, () => ["/api/v1/messages?limit=50"]),
    page200: await readLatency(servers, (s) => [page200.get(s)!]),
    statusScheduled: await readLatency(servers, () => [m("status=scheduled")]),
    statusFailed: await readLatency(servers, () => [m("status=failed")]),
    campaign: await readLatency(servers, (s) => [m(`campaignId=${s.side.campaignId}`)]),
    // Searches (db/messages/search.ts): a text no message holds looks through the whole window of
    // SEARCH_SCAN_ROWS messages, the worst case of a page; a number prefix; the last hour by creation time.
    searchTextNone: await readLatency(servers, () => [m("q=no%20message%20says%20this")]),
    searchNumber: await readLatency(servers, () => [m("to=%2B1")]),
    searchLastHour: await readLatency(servers, () => [m(`since=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`)]),
    deliveriesFailed: await readLatency(servers, (s) => [`/api/v1/webhooks/${s.side.webhookId}/deliveries?status=failed&limit=50`]),
    getById: await readLatency(servers, (s) => recent.get(s)!),
  };
  return servers.map((_s, k) => Object.fromEntries(Object.entries(measured).map(([name, l]) => [name, l[k]!])));
}

/** DUE messages due at once, to delivered with receipts, one worker process; messages/s and WAL per message. */
async function claim(side: Side) {
  const { db, url } = side.bench;
  const [worker] = await startWorkers(1, url, { WEBHOOK_ALLOW_PRIVATE: "1" });
  try {
    // BENCH_WAL_BLOCKS=1: which relations the claim's WAL went to (pg_walinspect), kept until read.
    if (process.env.BENCH_WAL_BLOCKS) {
      await db.raw("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
      await db.raw("ALTER SYSTEM SET wal_keep_size = '8GB'");
      await db.raw("SELECT pg_reload_conf()");
    }
    await db.raw("CHECKPOINT");
    const [{ lsn: before }] = (await db.raw("SELECT pg_current_wal_lsn() AS lsn")).rows;
    const dueAt = new Date(Date.now() + 3000);
    const accountId = (await db("accounts").where({ name: "history-1" }).first("id")).id;
    await scheduleMessages(db, { n: DUE, dueAt: () => dueAt, accountId });
    // The poll counts what is still on its way, each status set on the partial index made for it (scheduled and
    // sending; sent), never the account's whole history: counting the delivered read 100,000 rows every 50 ms on
    // the full side, and a single `status IN (scheduled, sending, sent)` matches neither index and did the same
    // (470 ms a poll, pg_stat_statements), so the benchmark's own reads slowed the claim it measured.
    const inFlight = async () =>
      Number(
        (
          await db.raw(
            `SELECT (SELECT count(*) FROM messages WHERE account_id = ? AND status IN ('scheduled', 'sending'))
                  + (SELECT count(*) FROM messages WHERE account_id = ? AND status = 'sent') AS n`,
            [accountId, accountId],
          )
        ).rows[0].n,
      );
    for (;;) {
      if ((await inFlight()) === 0) break;
      if (Date.now() - dueAt.getTime() > 600_000) throw new Error("claim: not all delivered after 10 min");
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = (Date.now() - dueAt.getTime()) / 1000;
    const delivered = Number(
      (
        await db.raw("SELECT count(*) AS n FROM messages WHERE account_id = ? AND status = 'delivered' AND scheduled_at = ?", [
          accountId,
          dueAt,
        ])
      ).rows[0].n,
    );
    if (delivered !== DUE) throw new Error(`claim: ${delivered} of ${DUE} delivered`);
    const [{ bytes }] = (await db.raw("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ?)::bigint AS bytes", [before])).rows;
    if (process.env.BENCH_WAL_BLOCKS) await printWalBlocks(db, side.name, before);
    return { messagesPerSecond: Math.round(DUE / seconds), seconds, walBytesPerMessage: Math.round(Number(bytes) / DUE) };
  } finally {
    await worker!.stop();
  }
}

/** The WAL since `before` by relation: blocks touched, full-page images and their bytes, record data (stderr). */
async function printWalBlocks(db: Side["bench"]["db"], label: string, before: string): Promise<void> {
  const { rows } = await db.raw(
    `SELECT coalesce(c.relname, b.relfilenode::text) AS rel, count(*) AS blocks, count(*) FILTER (WHERE b.block_fpi_length > 0) AS fpis,
            sum(b.block_fpi_length) AS fpi_bytes, sum(b.block_data_length) AS data_bytes
       FROM pg_get_wal_block_info(?, pg_current_wal_lsn()) b LEFT JOIN pg_class c ON c.relfilenode = b.relfilenode
      GROUP BY 1 ORDER BY sum(b.block_fpi_length) + sum(b.block_data_length) DESC LIMIT 15`,
    [before],
  );
  process.stderr.write(
    `${label}: the claim's WAL by relation\n${rows.map((r: Record<string, unknown>) => JSON.stringify(r)).join("\n")}\n`,
  );
}

/** The API's schedule latency while retention deletes the oldest day (on the empty side it finds nothing). */
async function retentionUnderLoad(side: Side, url: string) {
  const t = Date.now();
  const retention = applyRetention(side.bench.db, {
    messageRetentionDays: DAYS - 1,
    deliveryLogRetentionDays: 0,
    messageBodyRetentionDays: 0,
  });
  const load = await scheduleLoad(url, side.key);
  const deleted = await retention;
  return { ...load, deleted, retentionSeconds: (Date.now() - t) / 1000 };
}

const sides = [
  await prepareHistory("full", await startBenchDatabase(), receiver.url),
  await prepareHistory("empty", await startBenchDatabase(), receiver.url),
];
const buildSeconds = await buildHistory(sides[0]!, N);
await buildHistory(sides[1]!, EMPTY_N);
const stored = await storage(sides[0]!);
process.stderr.write(`history built in ${buildSeconds} s: ${stored.bytesPerMessage} bytes per message\n`);

const results: Record<string, Record<string, unknown>> = { full: {}, empty: {} };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
/** ROUNDS alternating rounds of the schedule load on each side; medians. */
async function scheduleRounds(servers: Served[], label: string): Promise<Load[]> {
  const runs: Load[][] = servers.map(() => []);
  for (let round = 1; round <= ROUNDS; round++)
    for (const [k, s] of servers.entries()) {
      process.stderr.write(`${label}, ${s.side.name}, round ${round}/${ROUNDS}…\n`);
      runs[k]!.push(await scheduleLoad(s.url, s.side.key));
    }
  return runs.map((r) => ({
    rps: median(r.map((x) => x.rps)),
    p50: median(r.map((x) => x.p50)),
    p99: median(r.map((x) => x.p99)),
    non2xx: r.reduce((a, x) => a + x.non2xx, 0),
  }));
}
const serve = async (role: string) =>
  Promise.all(
    sides.map(async (side) => ({
      side,
      ...(await serveProcess("server/main.ts", side.bench.url, { ROLE: role, RATE_LIMIT_PER_SECOND: "0", WEBHOOK_ALLOW_PRIVATE: "1" })),
    })),
  );
const stop = (servers: { child: ChildProcess }[]) => servers.forEach((s) => s.child.kill("SIGTERM"));

const apis = await serve("api");
(await scheduleRounds(apis, "schedule, API alone")).forEach((r, k) => (results[sides[k]!.name]!.scheduleApi = r));
process.stderr.write("reads, alternating…\n");
(await reads(apis)).forEach((r, k) => (results[sides[k]!.name]!.reads = r));
stop(apis);
const alls = await serve("all");
(await scheduleRounds(alls, "schedule, API + worker")).forEach((r, k) => (results[sides[k]!.name]!.scheduleAll = r));
stop(alls);
for (const side of sides) {
  process.stderr.write(`${side.name}: claim of ${DUE} due messages…\n`);
  results[side.name]!.claim = await claim(side);
}
const again = await serve("api");
for (const s of again) {
  process.stderr.write(`${s.side.name}: schedule while retention runs…\n`);
  results[s.side.name]!.retention = await retentionUnderLoad(s.side, s.url);
}
stop(again);

// Ratios full/empty: for rates empty/full, for latencies full/empty (so ≤ 1.3 is the target for every one).
type Rec = Record<string, unknown>;
const f = results.full as Rec;
const e = results.empty as Rec;
const ratio = (a: number, b: number) => Number((a / b).toFixed(2));
const ratios: Record<string, number> = {
  scheduleApiRate: ratio((e.scheduleApi as Load).rps, (f.scheduleApi as Load).rps),
  scheduleApiP99: ratio((f.scheduleApi as Load).p99, (e.scheduleApi as Load).p99),
  scheduleAllRate: ratio((e.scheduleAll as Load).rps, (f.scheduleAll as Load).rps),
  scheduleAllP99: ratio((f.scheduleAll as Load).p99, (e.scheduleAll as Load).p99),
  claimRate: ratio(
    (e.claim as { messagesPerSecond: number }).messagesPerSecond,
    (f.claim as { messagesPerSecond: number }).messagesPerSecond,
  ),
  claimWal: ratio(
    (f.claim as { walBytesPerMessage: number }).walBytesPerMessage,
    (e.claim as { walBytesPerMessage: number }).walBytesPerMessage,
  ),
  retentionP99: ratio((f.retention as Load).p99, (e.retention as Load).p99),
};
for (const [name, r] of Object.entries(f.reads as Record<string, { p50: number } | null>)) {
  const er = (e.reads as Record<string, { p50: number } | null>)[name];
  if (r && er) ratios[`${name}P50`] = ratio(r.p50, er.p50);
}
writeResult("history", {
  machine: await machine(sides[0]!.bench.db),
  messages: N,
  emptyMessages: EMPTY_N,
  accounts: ACCOUNTS,
  days: DAYS,
  seconds: SECONDS,
  rounds: ROUNDS,
  due: DUE,
  buildSeconds,
  storage: stored,
  full: results.full,
  empty: results.empty,
  ratios,
  worstRatio: Math.max(...Object.values(ratios)),
});
receiver.close();
for (const side of sides) await side.bench.stop();
