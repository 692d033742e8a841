// npm run bench:eventloop — the longest event-loop block of the API process while it takes a POST /campaigns
// with 10,000 recipients (issue: a large body must not hold the loop for long stretches). The app runs in this
// process (and a 10,000-row POST /contacts/import) over a fresh embedded PostgreSQL; bodies are serialised before measuring, so the client adds only
// socket writes. Two probes: node:perf_hooks monitorEventLoopDelay (max of its histogram) and a 1 ms timer
// whose lateness is recorded. Then the parts of the request alone: JSON.parse, phone parsing of 10,000 numbers.
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { AddressInfo } from "node:net";
import { loadConfig } from "../server/config.js";
import { createApp, createHttpServer } from "../server/http/app.js";
import { createLogger } from "../server/logger.js";
import { requirePhone } from "../server/domain/phone.js";
import { createKeyForAccount } from "../server/operator/index.js";
import { machine, startBenchDatabase, writeResult } from "./lib.js";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 5);
const RECIPIENTS = 10_000;

const numbers = (offset: number) =>
  Array.from({ length: RECIPIENTS }, (_, i) => `+1 (415) ${String(2_000_000 + offset + i).replace(/^(\d{3})/, "$1-")}`);
const body = (offset: number, invalidLast = false) => {
  const recipients = numbers(offset);
  if (invalidLast) recipients[RECIPIENTS - 1] = "not a number";
  return JSON.stringify({ name: "bench", message: "Hello {{firstName}}", type: "instant", recipients });
};

/** Runs `work` while both probes watch the loop; returns the longest block seen, in ms. */
async function longestBlock(work: () => Promise<void>): Promise<{ histogramMaxMs: number; timerMaxLateMs: number; elapsedMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  let timerMaxLateMs = 0;
  let running = true;
  let last = performance.now();
  const tick = () => {
    const now = performance.now();
    timerMaxLateMs = Math.max(timerMaxLateMs, now - last - 1);
    last = now;
    if (running) setTimeout(tick, 1);
  };
  setTimeout(tick, 1);
  histogram.enable();
  const started = performance.now();
  await work();
  const elapsedMs = performance.now() - started;
  running = false;
  histogram.disable();
  return { histogramMaxMs: histogram.max / 1e6, timerMaxLateMs, elapsedMs };
}

const bench = await startBenchDatabase();
const config = { ...loadConfig({}), rateLimitPerSecond: 0, rateLimitBulkPerSecond: 0, unauthenticatedPerSecond: 0 };
const server = createHttpServer(createApp({ db: bench.db, log: createLogger("warn"), config, now: () => new Date() }), config);
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
try {
  const { key } = await createKeyForAccount(bench.db, "bench");
  const post = async (payload: string, expected: number, path = "/campaigns") => {
    const res = await fetch(base + path, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: payload,
    });
    await res.arrayBuffer();
    if (res.status !== expected) throw new Error(`expected ${expected}, got ${res.status}`);
  };
  const runs: { kind: string; histogramMaxMs: number; timerMaxLateMs: number; elapsedMs: number }[] = [];
  await post(body(0), 201); // warm-up: validator compiled, statements prepared
  for (let i = 1; i <= REQUESTS; i++) {
    const valid = body(i * RECIPIENTS);
    runs.push({ kind: "201", ...(await longestBlock(() => post(valid, 201))) });
    const invalid = body(i * RECIPIENTS, true);
    runs.push({ kind: "400 (last recipient invalid)", ...(await longestBlock(() => post(invalid, 400))) });
    const rows = JSON.stringify({ contacts: numbers(i * RECIPIENTS).map((phone) => ({ phone, firstName: "Ada" })) });
    runs.push({ kind: "import 10,000 rows", ...(await longestBlock(() => post(rows, 200, "/contacts/import"))) });
  }
  const sample = body(0);
  let t = performance.now();
  const parsed = JSON.parse(sample) as { recipients: string[] };
  const jsonParseMs = performance.now() - t;
  t = performance.now();
  for (const [i, phone] of parsed.recipients.entries()) requirePhone(phone, `/body/recipients/${i}`);
  const phoneParseMs = performance.now() - t;

  for (const r of runs) {
    process.stdout.write(
      `${r.kind.padEnd(30)} longest block ${r.histogramMaxMs.toFixed(1)} ms (histogram), ${r.timerMaxLateMs.toFixed(1)} ms (timer); request ${r.elapsedMs.toFixed(0)} ms\n`,
    );
  }
  process.stdout.write(
    `parts alone: JSON.parse ${jsonParseMs.toFixed(1)} ms (${(sample.length / 1024).toFixed(0)} KiB), phone parsing of ${RECIPIENTS} ${phoneParseMs.toFixed(1)} ms\n`,
  );
  writeResult("eventLoop", {
    machine: await machine(bench.db),
    recipients: RECIPIENTS,
    longestBlockMs: Math.max(...runs.map((r) => Math.max(r.histogramMaxMs, r.timerMaxLateMs))),
    runs,
    partsMs: { jsonParse: jsonParseMs, phoneParsing: phoneParseMs },
  });
} finally {
  await new Promise((resolve) => server.close(resolve));
  await bench.stop();
}
