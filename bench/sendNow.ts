// npm run bench:sendnow — sending like a carrier API, through real processes (one API process, one worker,
// the simulator without delay):
//   send now:  POST /api/v1/messages without scheduledAt at BENCH_RATE (200) requests/s for BENCH_SECONDS (10)
//              s; per message, from the moment the request was made to the simulator's submit
//              (simulator_submissions.submitted_at, the same host clock): p50/p99/max. Target p99 ≤ 50 ms.
//              Beside it, the HTTP answer's own latency (the floor: the message cannot be submitted before the
//              request that makes it commits).
//   batch:     POST /messages/batch with BENCH_BATCH (10,000) distinct messages against POST /campaigns with as
//              many recipients, alternating, BENCH_ROUNDS (3) each: time to the answer. Target: the batch
//              within 1.5× the campaign.
import { ensureAccount } from "../server/operator/index.js";
import { createKeyForAccount } from "../server/operator/index.js";
import { machine, percentile, serveProcess, startBenchDatabase, startWorkers, waitForCount, writeResult } from "./lib.js";

const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const BATCH = Number(process.env.BENCH_BATCH ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

const bench = await startBenchDatabase();
const { db } = bench;
const account = await ensureAccount(db, "bench-sendnow");
const { key } = await createKeyForAccount(db, "bench-sendnow");
const api = await serveProcess("server/main.ts", bench.url, { ROLE: "api", RATE_LIMIT_PER_SECOND: "0", RATE_LIMIT_BULK_PER_SECOND: "0" });
const workers = await startWorkers(1, bench.url, { SIMULATOR_SUBMIT_DELAY_MS: "0" });
const headers = { "content-type": "application/json", authorization: `Bearer ${key}` };
const post = (path: string, body: unknown) => fetch(`${api.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });

const summary = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50Ms: Math.round(percentile(sorted, 50)), p99Ms: Math.round(percentile(sorted, 99)), maxMs: Math.round(sorted.at(-1) ?? NaN) };
};

try {
  // Warm-up: the validator, the prepared statements, the worker's lanes.
  for (let i = 0; i < 50; i++) await post("/api/v1/messages", { to: "+14155550100", from: "ACME", body: "warm-up" });
  await waitForCount("warm-up sent", 50, async () => Number((await db.raw("SELECT count(*) AS n FROM simulator_submissions")).rows[0].n));

  // Send now at a steady rate.
  const total = RATE * SECONDS;
  const requested = new Map<string, number>();
  const answers: number[] = [];
  const t0 = Date.now();
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = t0 + (i * 1000) / RATE;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const at = Date.now();
    inFlight.push(
      post("/api/v1/messages", { to: `+1415556${String(1000 + (i % 9000))}`, from: "ACME", body: `Your code is ${100000 + i}` }).then(
        async (res) => {
          const { messageId } = (await res.json()) as { messageId: string };
          answers.push(Date.now() - at);
          requested.set(messageId, at);
        },
      ),
    );
  }
  await Promise.all(inFlight);
  await waitForCount("send now: submitted", total + 50, async () =>
    Number((await db.raw("SELECT count(*) AS n FROM simulator_submissions")).rows[0].n),
  );
  const { rows } = await db.raw<{ rows: { id: string; at: string }[] }>(
    "SELECT message_id AS id, (extract(epoch FROM submitted_at) * 1000)::float8 AS at FROM simulator_submissions WHERE message_id = ANY(?::uuid[])",
    [[...requested.keys()]],
  );
  const toSubmit = rows.map((r) => Number(r.at) - requested.get(r.id)!);
  const sendNow = { rate: RATE, seconds: SECONDS, messages: total, toSubmit: summary(toSubmit), httpAnswer: summary(answers) };
  console.log("send now", JSON.stringify(sendNow));

  // Batch against campaign, alternating.
  const phones = Array.from({ length: BATCH }, (_, i) => `+1415557${String(i % 10_000).padStart(4, "0")}`);
  const later = () => new Date(Date.now() + 24 * 3600_000).toISOString();
  const timed = async (path: string, body: unknown) => {
    const t = performance.now();
    const res = await post(path, body);
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${(await res.text()).slice(0, 300)}`);
    await res.arrayBuffer();
    return performance.now() - t;
  };
  const batchMs: number[] = [];
  const campaignMs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const at = later();
    batchMs.push(
      await timed("/api/v1/messages/batch", {
        messages: phones.map((to, i) => ({ to, from: "ACME", body: `Order ${round}-${i} has shipped. Thank you!`, scheduledAt: at })),
      }),
    );
    campaignMs.push(
      await timed("/api/v1/campaigns", {
        name: `c${round}`,
        message: "Your order has shipped. Thank you!",
        type: "scheduled",
        scheduledAt: at,
        recipients: phones,
      }),
    );
    console.log(`round ${round + 1}/${ROUNDS}: batch ${Math.round(batchMs.at(-1)!)} ms, campaign ${Math.round(campaignMs.at(-1)!)} ms`);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const batch = {
    items: BATCH,
    rounds: ROUNDS,
    batchMs: batchMs.map(Math.round),
    campaignMs: campaignMs.map(Math.round),
    ratio: Number((median(batchMs) / median(campaignMs)).toFixed(2)),
  };
  console.log("batch vs campaign", JSON.stringify(batch));
  writeResult("sendnow", {
    bench: "sendnow",
    at: new Date().toISOString(),
    machine: await machine(db),
    accountId: account.id,
    sendNow,
    batch,
  });
} finally {
  await Promise.all(workers.map((w) => w.stop()));
  api.child.kill("SIGTERM");
  await bench.stop();
}
