// Shared pieces of the benchmarks: a fresh embedded PostgreSQL, real worker processes, bulk scheduling,
// a progress bar, percentiles and the result file.
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, totalmem, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { SingleBar, Presets } from "cli-progress";
import pino from "pino";
import { ensureAccount } from "../server/operator/index.js";
import { freePort, startEmbeddedPostgres } from "../server/db/embedded.js";
import { createDb, migrateLatest, type Db } from "../server/db/knex.js";
import { insertMessagesWithJobs } from "../server/db/messages/index.js";
import type { Priority } from "../server/domain/sendingPolicy.js";
import { uuidv7 } from "../server/domain/uuidv7.js";
import { createLogger } from "../server/logger.js";

export const root = resolve(import.meta.dirname, "..");

export interface BenchDb {
  db: Db;
  url: string;
  /** The cluster's data directory (its postmaster.pid names the server's process). */
  dataDir: string;
  stop(): Promise<void>;
}

/** A fresh PostgreSQL cluster for one benchmark run, durable settings as in production. */
export async function startBenchDatabase(): Promise<BenchDb> {
  const dir = mkdtempSync(join(tmpdir(), "sms-bench-"));
  chmodSync(dir, 0o755);
  // Diagnosis: BENCH_PG_STATS loads pg_stat_statements; BENCH_PG_EXPLAIN_MS=N has auto_explain log the plan (with
  // actual rows) of every statement slower than N ms to stderr, as the server's debug log.
  const explainMs = process.env.BENCH_PG_EXPLAIN_MS;
  const preload = [process.env.BENCH_PG_STATS && "pg_stat_statements", explainMs && "auto_explain"].filter(Boolean).join(",");
  const pg = await startEmbeddedPostgres({
    dataDir: dir,
    log: explainMs ? createLogger("debug", pino.destination(2)) : createLogger("warn"),
    announce: false,
    settings: {
      max_connections: "200",
      ...(preload ? { shared_preload_libraries: preload } : {}),
      ...(explainMs
        ? {
            "auto_explain.log_min_duration": `${explainMs}ms`,
            "auto_explain.log_analyze": "on",
            "auto_explain.log_nested_statements": "on",
          }
        : {}),
    },
  });
  const db = createDb(pg.url, 20);
  await migrateLatest(db);
  if (process.env.BENCH_PG_STATS) await db.raw("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  return {
    db,
    url: pg.url,
    dataDir: dir,
    async stop() {
      await db.destroy();
      await pg.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Empties every table the delivery path writes, between scenarios. */
export async function resetData(db: Db): Promise<void> {
  await db.raw("TRUNCATE jobs, messages, webhook_deliveries, simulator_submissions, campaigns, campaign_recipients CASCADE");
}

export interface WorkerProcess {
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startWorkers(n: number, url: string, env: Record<string, string> = {}): Promise<WorkerProcess[]> {
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<WorkerProcess>((resolveWorker, reject) => {
          const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
          const child = spawn("node", [...profile, "--import", "tsx", "server/main.ts"], {
            cwd: root,
            env: { ...process.env, ROLE: "worker", DATABASE_URL: url, LOG_LEVEL: "info", SIMULATOR_DELIVERY_DELAY_MS: "0", ...env },
            stdio: ["ignore", "pipe", "inherit"],
          });
          let out = "";
          child.stdout.on("data", (c: Buffer) => {
            out += c.toString();
            if (out.includes("job runner started")) {
              out = "";
              child.stdout.removeAllListeners("data");
              child.stdout.resume();
              resolveWorker({
                child,
                stop: () =>
                  new Promise<void>((done) => {
                    child.once("exit", () => done());
                    child.kill("SIGTERM");
                  }),
              });
            }
          });
          child.once("exit", (code) => reject(new Error(`worker exited with ${code}`)));
        }),
    ),
  );
}

export interface ScheduleOptions {
  n: number;
  dueAt: (i: number) => Date;
  /** Recipient of message i; by default numbers the simulator delivers. */
  to?: (i: number) => string;
  accountId?: string;
  /** Segments of message i (1 by default) and its priority (normal by default). */
  segments?: (i: number) => number;
  priority?: (i: number) => Priority;
}

/** Stores messages and their send jobs as campaign fan-out does, 1,000 a statement. */
export async function scheduleMessages(db: Db, o: ScheduleOptions): Promise<string> {
  const accountId = o.accountId ?? (await ensureAccount(db, `bench-${randomUUID()}`)).id;
  const to = o.to ?? ((i: number) => `+1415558${String(1000 + (i % 8000))}`);
  for (let i = 0; i < o.n; i += 1000) {
    const batch = Array.from({ length: Math.min(1000, o.n - i) }, (_v, j) => ({
      // Version 7, as the product's own paths make them: random ids would land on random pages of a big
      // history's indexes, the cost bench:history exists to show is gone.
      id: uuidv7(),
      jobId: uuidv7(),
      to: to(i + j),
      from: "BENCH",
      body: "benchmark message",
      scheduledAt: o.dueAt(i + j),
      segments: o.segments?.(i + j) ?? 1,
      priority: o.priority?.(i + j),
      encoding: "GSM-7" as const,
    }));
    await db.transaction((tx) => insertMessagesWithJobs(tx, accountId, batch));
  }
  return accountId;
}

export function progress(label: string, total: number): SingleBar {
  const bar = new SingleBar(
    {
      format: `${label.padEnd(28)} [{bar}] {percentage}% | {value}/{total} | {duration}s`,
      stream: process.stderr,
      hideCursor: true,
      // Piped to a log file (CI, nohup), a line every 10 s instead of nothing.
      noTTYOutput: true,
      notTTYSchedule: 10_000,
    },
    Presets.shades_classic,
  );
  bar.start(total, 0);
  return bar;
}

/** Polls `count` until it reaches `total`, updating a progress bar. */
export async function waitForCount(label: string, total: number, count: () => Promise<number>, timeoutMs = 300_000): Promise<void> {
  const bar = progress(label, total);
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      const n = await count();
      bar.update(n);
      if (n >= total) return;
      if (Date.now() > deadline) throw new Error(`${label}: only ${n}/${total} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    bar.stop();
  }
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export async function machine(db: Db) {
  const { rows } = await db.raw("SHOW server_version");
  return {
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    postgres: rows[0].server_version as string,
  };
}

/** BENCH_RESULTS_DIR redirects results (the CI smoke run writes to a scratch folder). */
export function writeResult(name: string, result: unknown): void {
  const dir = process.env.BENCH_RESULTS_DIR ?? join(root, "bench/results");
  mkdirSync(dir, { recursive: true });
  const line = JSON.stringify({ bench: name, at: new Date().toISOString(), ...(result as object) });
  writeFileSync(join(dir, `${name}.json`), `${line}\n`);
  process.stdout.write(`${line}\n`);
}

/** With BENCH_PG_STATS=1: the statement count and time, the most called statements and those that took the most database time, to stderr. */
export async function printTopStatements(db: Db, label: string): Promise<void> {
  if (!process.env.BENCH_PG_STATS) return;
  const { rows } = await db.raw(
    `SELECT calls, round(total_exec_time) AS total_ms, round(mean_exec_time::numeric, 3) AS mean_ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS query
       FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 12`,
  );
  const total = (await db.raw("SELECT sum(calls) AS calls, round(sum(total_exec_time)) AS ms FROM pg_stat_statements")).rows[0];
  const byCalls = (
    await db.raw(
      `SELECT calls, rows, round(total_exec_time) AS total_ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS query
         FROM pg_stat_statements ORDER BY calls DESC LIMIT 16`,
    )
  ).rows;
  process.stderr.write(`\nall statements (${label}): ${total.calls} calls, ${total.ms} ms\nmost called (calls, rows, time):\n`);
  for (const r of byCalls)
    process.stderr.write(`${String(r.calls).padStart(7)} ${String(r.rows).padStart(8)} ${String(r.total_ms).padStart(7)} ms  ${r.query}\n`);
  process.stderr.write(`\ntop statements (${label}):\n`);
  for (const r of rows)
    process.stderr.write(
      `${String(r.calls).padStart(7)} ${String(r.total_ms).padStart(7)} ms ${String(r.mean_ms).padStart(8)} ms  ${r.query}\n`,
    );
  await db.raw("SELECT pg_stat_statements_reset()");
}

/** Starts a server process and waits until it answers. Its output is discarded: request logs must not
 * compete with the load generator for this process's event loop (a full pipe stalls a synchronous logger). */
export async function serveProcess(
  script: string,
  databaseUrl: string,
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn("node", [...profile, "--import", "tsx", script], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, PORT: String(port), LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    const up = await fetch(`${url}/healthz`).then(
      (r) => r.status < 500,
      () => false,
    );
    if (up) return { child, url };
    if (i > 300) throw new Error(`${script} did not start`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * An autocannon request that schedules one message an hour ahead, to a new number each time (bench:api and
 * bench:history load the same request).
 */
export function scheduleRequest(key: string) {
  let n = 0;
  return {
    method: "POST" as const,
    path: "/api/v1/scheduler/schedule",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    setupRequest: (req: { body?: string }) => ({
      ...req,
      body: JSON.stringify({
        to: `+1415559${String(1000 + (n++ % 9000))}`,
        body: "Your appointment is tomorrow at 10:00.",
        from: "ACME",
        scheduledAt: new Date(Date.now() + 3600_000).toISOString(),
      }),
    }),
  };
}
