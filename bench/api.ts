// npm run bench:api — POST /api/v1/scheduler/schedule under autocannon (32 connections, valid random bodies),
// against our server and a baseline Express app running the same single statement (job + message + wake-up)
// with no auth, no validation and no logging, side by side on the same database: alternating rounds, medians, and the
// ratio; a side that answers any request with an error, a timeout or a non-2xx status fails the run instead.
// A third side, `priced`, is our server again with a prepaid account on a price list: every message priced and
// charged to its one balance row (docs/BILLING.md); its ratio to `ours` is pricing's cost (issue 49).
import autocannon from "autocannon";
import { ensureAccount } from "../server/operator/index.js";
import { createKeyForAccount } from "../server/operator/index.js";
import { changeAccount, creditAccount, putPriceList } from "../server/billing/index.js";
import { machine, printTopStatements, scheduleRequest, serveProcess, startBenchDatabase, writeResult } from "./lib.js";

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const bench = await startBenchDatabase();
const { db } = bench;
const account = await ensureAccount(db, "bench-api");
const { key } = await createKeyForAccount(db, "bench-api");
// The priced account: a default price for every destination, prepaid with far more than the run spends.
const priced = await ensureAccount(db, "bench-api-priced");
await putPriceList(db, "bench", { currency: "USD", entries: [], default: 7500 });
await changeAccount(db, priced.id, { priceList: "bench", billing: "prepaid" });
await creditAccount(db, priced.id, 1_000_000_000_000, "bench:api");
const { key: pricedKey } = await createKeyForAccount(db, "bench-api-priced");

const ours = await serveProcess("server/main.ts", bench.url, { ROLE: "api", RATE_LIMIT_PER_SECOND: "0" });
const baseline = await serveProcess("bench/baseline-api.ts", bench.url, { BASELINE_ACCOUNT_ID: account.id });

const request = scheduleRequest(key);

type Side = "ours" | "priced" | "baseline";
const runs: Record<Side, { rps: number; p50: number; p99: number; non2xx: number }[]> = { ours: [], priced: [], baseline: [] };
for (let round = 1; round <= ROUNDS; round++) {
  for (const [name, target, req] of [
    ["ours", ours, request],
    ["priced", ours, scheduleRequest(pricedKey)],
    ["baseline", baseline, request],
  ] as const) {
    process.stderr.write(`round ${round}/${ROUNDS}: ${name} for ${DURATION} s…\n`);
    const r = await autocannon({ url: target.url, connections: 32, duration: DURATION, requests: [req] });
    runs[name].push({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx + r.errors + r.timeouts });
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const summary = (name: Side) => ({
  requestsPerSecond: Math.round(median(runs[name].map((r) => r.rps))),
  p50Ms: median(runs[name].map((r) => r.p50)),
  p99Ms: median(runs[name].map((r) => r.p99)),
  non2xx: runs[name].reduce((a, r) => a + r.non2xx, 0),
});
const result = { ours: summary("ours"), priced: summary("priced"), baseline: summary("baseline") };
await printTopStatements(db, "api, both servers");
ours.child.kill("SIGTERM");
baseline.child.kill("SIGTERM");
// A side that answered with errors measured something else: report the failure, never a ratio.
const failed = (["ours", "priced", "baseline"] as const).filter((name) => result[name].non2xx > 0);
if (failed.length > 0) {
  process.stderr.write(
    `bench:api failed: ${failed.map((name) => `${name} answered ${result[name].non2xx} requests with an error`).join("; ")}\n`,
  );
  await bench.stop();
  process.exit(1);
}
writeResult("api", {
  machine: await machine(db),
  connections: 32,
  seconds: DURATION,
  rounds: ROUNDS,
  ...result,
  ratio: Number((result.ours.requestsPerSecond / result.baseline.requestsPerSecond).toFixed(2)),
  pricedToOurs: Number((result.priced.requestsPerSecond / result.ours.requestsPerSecond).toFixed(2)),
});
await bench.stop();
