// Starting and talking to bench/queue-worker.ts processes (ours or graphile-worker).
import { fork, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { makeWorkerUtils, runMigrations } from "graphile-worker";
import { insertUntypedJobs } from "../server/db/jobs/index.js";
import type { Db } from "../server/db/knex.js";
import { root } from "./lib.js";

export type QueueSystem = "ours" | "graphile";

export interface Report {
  count: number;
  lastFinishedAt: number;
  startDelaysMs: number[];
}

export interface QueueWorker {
  report(): Promise<Report>;
  stop(): Promise<void>;
}

export async function startQueueWorkers(system: QueueSystem, n: number, url: string): Promise<QueueWorker[]> {
  if (system === "graphile") await runMigrations({ connectionString: url, logger: undefined });
  return Promise.all(Array.from({ length: n }, () => startOne(system, url)));
}

function startOne(system: QueueSystem, url: string): Promise<QueueWorker> {
  const child: ChildProcess = fork("bench/queue-worker.ts", [], {
    cwd: root,
    execArgv: ["--import", "tsx", ...(process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])],
    env: { ...process.env, DATABASE_URL: url, QUEUE_SYSTEM: system },
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${system} queue worker exited with ${code}`)));
    child.once("message", () =>
      resolve({
        report: () =>
          new Promise<Report>((done) => {
            child.once("message", (r) => done(r as Report));
            child.send("report");
          }),
        stop: async () => {
          child.send("stop");
          await exited;
        },
      }),
    );
  });
}

/** Adds `n` no-op jobs due at `dueAt` (default now) in one transaction; resolves once committed. */
export async function addNoopJobs(system: QueueSystem, db: Db, url: string, n: number, dueAt?: (i: number) => Date): Promise<void> {
  const due = dueAt ?? (() => new Date());
  if (system === "ours") {
    await db.transaction(async (tx) => {
      for (let i = 0; i < n; i += 5000) {
        const jobs = Array.from({ length: Math.min(5000, n - i) }, (_v, j) => {
          const runAt = due(i + j);
          return { id: randomUUID(), kind: "noop", payload: dueAt ? { dueAt: runAt.getTime() } : {}, runAt, maxAttempts: 1 };
        });
        await insertUntypedJobs(tx, jobs);
      }
    });
    return;
  }
  // One call, so one statement and one commit, as ours.
  const utils = await makeWorkerUtils({ connectionString: url });
  try {
    await utils.addJobs(
      Array.from({ length: n }, (_v, i) => {
        const runAt = due(i);
        return { identifier: "noop", payload: dueAt ? { dueAt: runAt.getTime() } : {}, runAt };
      }),
    );
  } finally {
    await utils.release();
  }
}

/** Jobs still waiting, running or not yet recorded complete. */
export async function remainingJobs(system: QueueSystem, db: Db): Promise<number> {
  const { rows } = await db.raw(
    system === "ours"
      ? "SELECT (SELECT count(*) FROM jobs WHERE state IN ('available', 'retryable')) + (SELECT count(*) FROM jobs WHERE state = 'running') AS n"
      : "SELECT count(*) AS n FROM graphile_worker._private_jobs",
  );
  return Number(rows[0].n);
}
