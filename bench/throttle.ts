// npm run bench:throttle — throughput caps (docs/API.md, "Sending policy"), counted at the simulator, whose books
// record when each message was handed over.
//   precision: an account capped at BENCH_THROTTLE_CAP (200) segments/s with BENCH_THROTTLE_SECONDS (10) s of
//              messages of 1, 2 and 3 segments due at one instant, with 1 and 2 worker processes
//              (BENCH_WORKERS, "1,2"): achieved segments/s from the first submission to the last against the cap,
//              the busiest one-second window, and what the queue cost (job row updates and queue row writes
//              per message, from pg_stat_user_tables). Then the same with the cap on the `default` connector
//              instead of the account (connectorWorkers1, connectorWorkers2; docs/ROUTING.md). BENCH_THROTTLE_ON
//              ("account,connector") picks the cases.
//   latency:   a capped campaign of BENCH_THROTTLE_CAMPAIGN (10,000) low messages of the same account, one
//              worker; once its backlog is queued, BENCH_THROTTLE_HIGH (50) high messages due 5 a second:
//              p50/p99/max of submitted − scheduledAt, and the campaign's segments/s meanwhile (skipped with
//              BENCH_THROTTLE_CAMPAIGN=0).
// THROUGHPUT_PACER_MS is the default (100 ms) unless set in the environment.
import { ensureAccount } from "../server/operator/index.js";
import { updateAccountSettings } from "../server/db/accountSettings.js";
import type { Db } from "../server/db/knex.js";
import {
  machine,
  percentile,
  progress,
  resetData,
  scheduleMessages,
  startBenchDatabase,
  startWorkers,
  waitForCount,
  writeResult,
} from "./lib.js";

const CAP = Number(process.env.BENCH_THROTTLE_CAP ?? 200);
const SECONDS = Number(process.env.BENCH_THROTTLE_SECONDS ?? 10);
const CAMPAIGN = Number(process.env.BENCH_THROTTLE_CAMPAIGN ?? 10_000);
const HIGH = Number(process.env.BENCH_THROTTLE_HIGH ?? 50);
const HIGH_PER_SECOND = 5;
const WORKERS = (process.env.BENCH_WORKERS ?? "1,2").split(",").filter(Boolean).map(Number);
const SEGMENTS = [1, 2, 3];
const CAPS_ON = (process.env.BENCH_THROTTLE_ON ?? "account,connector").split(",").filter(Boolean) as ("account" | "connector")[];

const bench = await startBenchDatabase();
const { db } = bench;
const count = async (sql: string, bindings: unknown[] = []) => Number((await db.raw(sql, bindings)).rows[0].n);

interface Submission {
  at: number;
  segments: number;
  priority: string;
  scheduledAt: number;
}

async function submissions(accountId: string): Promise<Submission[]> {
  const { rows } = await db.raw(
    `SELECT EXTRACT(EPOCH FROM s.submitted_at)::float8 AS at, m.segments, m.priority, EXTRACT(EPOCH FROM m.scheduled_at)::float8 AS "scheduledAt"
       FROM simulator_submissions s JOIN messages m ON m.id = s.message_id WHERE m.account_id = ? ORDER BY s.submitted_at`,
    [accountId],
  );
  return rows;
}

/** The most segments handed over within any one second (a window starting at each submission). */
function busiestSecond(subs: Submission[]): number {
  let best = 0;
  for (let i = 0, j = 0, sum = 0; i < subs.length; i++) {
    while (j < subs.length && subs[j]!.at < subs[i]!.at + 1) sum += subs[j++]!.segments;
    best = Math.max(best, sum);
    sum -= subs[i]!.segments;
  }
  return best;
}

/** Row writes of a table so far (read after the workers exited: a backend flushes its counts at exit). */
async function writes(db: Db, table: string): Promise<{ updates: number; all: number }> {
  const { rows } = await db.raw(
    "SELECT n_tup_upd AS updates, n_tup_ins + n_tup_upd + n_tup_del AS all FROM pg_stat_user_tables WHERE relname = ?",
    [table],
  );
  return { updates: Number(rows[0].updates), all: Number(rows[0].all) };
}

async function reset(): Promise<void> {
  await resetData(db);
  await db.raw("TRUNCATE throttled_sends, throughput_buckets, account_settings");
  await db.raw("SELECT pg_stat_reset()");
}

/** The latency case: high messages due during a capped low campaign of the same account. */
async function measureHighPriority() {
  await reset();
  const [worker] = await startWorkers(1, bench.url);
  const { id: accountId } = await ensureAccount(db, "bench-throttle-latency");
  await updateAccountSettings(db, accountId, { maxSegmentsPerSecond: CAP });
  const campaignDue = new Date(Date.now() + 1000);
  await scheduleMessages(db, { n: CAMPAIGN, dueAt: () => campaignDue, accountId, priority: () => "low" });
  await waitForCount(`campaign of ${CAMPAIGN} queued`, Math.floor(CAMPAIGN * 0.9), async () =>
    Math.min(
      CAMPAIGN,
      (await count("SELECT count(*) AS n FROM throttled_sends")) + (await count("SELECT count(*) AS n FROM simulator_submissions")),
    ),
  );
  const queuedSeconds = (Date.now() - campaignDue.getTime()) / 1000;
  const highStart = Date.now() + 1000;
  await scheduleMessages(db, {
    n: HIGH,
    dueAt: (i) => new Date(highStart + (i * 1000) / HIGH_PER_SECOND),
    accountId,
    priority: () => "high",
  });
  const bar = progress("high messages during the campaign", HIGH);
  let highs: Submission[] = [];
  for (;;) {
    highs = (await submissions(accountId)).filter((s) => s.priority === "high");
    bar.update(highs.length);
    if (highs.length >= HIGH) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  bar.stop();
  await worker!.stop();
  const latencies = highs.map((s) => (s.at - s.scheduledAt) * 1000).sort((a, b) => a - b);
  const during = (await submissions(accountId)).filter((s) => s.at >= highStart / 1000 && s.at <= highs.at(-1)!.at);
  const duringSpan = during.at(-1)!.at - during[0]!.at;
  const duringSegments = during.slice(0, -1).reduce((sum, s) => sum + s.segments, 0);

  return {
    campaign: CAMPAIGN,
    campaignQueuedSeconds: Number(queuedSeconds.toFixed(1)),
    messages: HIGH,
    p50Ms: Math.round(percentile(latencies, 50)),
    p99Ms: Math.round(percentile(latencies, 99)),
    maxMs: Math.round(latencies.at(-1)!),
    segmentsPerSecondMeanwhile: Number((duringSegments / duringSpan).toFixed(1)),
    busiestSecondMeanwhile: busiestSecond(during),
  };
}

try {
  const precision: Record<string, unknown> = {};
  for (const capOn of CAPS_ON)
    for (const workers of WORKERS) {
      await reset();
      const procs = await startWorkers(workers, bench.url);
      const { id: accountId } = await ensureAccount(db, `bench-throttle-${capOn}-${workers}`);
      if (capOn === "account") await updateAccountSettings(db, accountId, { maxSegmentsPerSecond: CAP });
      // The connector's cap instead (docs/ROUTING.md): the workers apply it at their next refresh.
      await db("connectors").update({ max_segments_per_second: capOn === "connector" ? CAP : null });
      await new Promise((r) => setTimeout(r, 1500));
      const n = Math.round((CAP * SECONDS) / 2); // 2 segments on average
      const due = new Date(Date.now() + 2000);
      await scheduleMessages(db, { n, dueAt: () => due, accountId, segments: (i) => SEGMENTS[i % 3]! });
      await waitForCount(`capped at ${CAP}/s on the ${capOn}, ${workers} worker(s)`, n, () =>
        count("SELECT count(*) AS n FROM simulator_submissions s JOIN messages m ON m.id = s.message_id WHERE m.account_id = ?", [
          accountId,
        ]),
      );
      await Promise.all(procs.map((p) => p.stop()));
      await new Promise((r) => setTimeout(r, 1000)); // the workers' backends flush their statistics as they exit
      const subs = await submissions(accountId);
      const total = subs.reduce((sum, s) => sum + s.segments, 0);
      const span = subs.at(-1)!.at - subs[0]!.at;
      const achieved = (total - subs.at(-1)!.segments) / span;
      const jobs = await writes(db, "jobs");
      const queue = await writes(db, "throttled_sends");
      precision[`${capOn === "account" ? "" : "connector"}${capOn === "account" ? "workers" : "Workers"}${workers}`] = {
        messages: n,
        segments: total,
        achievedSegmentsPerSecond: Number(achieved.toFixed(1)),
        ofCap: Number((achieved / CAP).toFixed(3)),
        busiestSecond: busiestSecond(subs),
        firstSubmittedMs: Math.round((subs[0]!.at - due.getTime() / 1000) * 1000),
        jobUpdatesPerMessage: Number((jobs.updates / n).toFixed(2)),
        queueWritesPerMessage: Number((queue.all / n).toFixed(2)),
      };
    }
  await db("connectors").update({ max_segments_per_second: null });

  writeResult("throttle", {
    machine: await machine(db),
    cap: CAP,
    pacerMs: Number(process.env.THROUGHPUT_PACER_MS ?? 100),
    precision,
    highPriority: CAMPAIGN > 0 ? await measureHighPriority() : null,
  });
} finally {
  await bench.stop();
}
