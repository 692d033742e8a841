// npm run bench:smpp — the carrier path end to end: messages in over HTTP, out over SMPP to a local SMSC
// (bench/smsc.ts, its own process: answers and receipts every submit_sm at once), every receipt posted back
// over HTTP to a local receiver, timed from the first request until the last receipt arrived.
//   ceiling:  the SMSC's own rate with a trivial client (submit, read the receipt) at each window, in this run.
//   ours:     one API process and BENCH_WORKERS (1,2) worker processes, SMPP_MAX_IN_FLIGHT = the window;
//             `one-by-one`: POST /api/v1/messages for each message (BENCH_CONCURRENCY (32) requests in flight);
//             `campaign`: one POST /api/v1/campaigns to a group of as many contacts (made beforehand). Every
//             message's `sent` and `delivered` receipt posted to the account's webhook.
//             `smpp-client` (npm run bench:smpp-server): a client application (bench/smppClientApp.ts) binds to
//             our SMPP server for client applications (its own ROLE=smpp process, in the CPU instead of the API)
//             as another account, with no webhook, and submits each message with registered_delivery 1 at the
//             window; timed until every receipt came back to it as a deliver_sm.
//   kannel:   where Debian's kannel is installed (bench/kannel.ts; BENCH_KANNEL=0 skips it): one sendsms GET
//             per message at the same concurrency, dlr-mask 9 (the SMSC's answer and the delivery), each posted
//             to the same receiver.
// BENCH_RECEIPTS=per-event,batched adds each case with the webhook taking its receipts in batches.
// BENCH_PRICING=1 prices every message and charges it to a prepaid balance (docs/BILLING.md).
// BENCH_CONNECTORS (1; "1,2" adds the catch-all route as a 50/50 pool of two connectors to the same SMSC, each
// its own bind per worker).
// BENCH_MESSAGES (5000,20000) × BENCH_WINDOWS (10,100), BENCH_ROUNDS (2) alternating rounds, medians. Reports
// messages/s to every receipt in, CPU per message (ms, from /proc: for ours the API, the workers and every
// PostgreSQL process; for Kannel bearerbox and smsbox), the ratios to Kannel, and per round the checks: every
// message submitted exactly once (the SMSC's count), every receipt in once, nothing unmatched. For ours, per
// message: WAL bytes and row writes by table (bench/writes.ts), and the CPU split between the API, the workers
// and PostgreSQL. With BENCH_PG_STATS=1, statements per message from pg_stat_statements. Results:
// bench/results/smpp.json.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import smpp, { type PDU } from "smpp";
import { listConnectors } from "../server/routing/index.js";
import { changeConnector, createConnector, replaceRoutes, routingTable } from "../server/routing/index.js";
import { ensureAccount } from "../server/operator/index.js";
import { insertWebhook, updateWebhook } from "../server/db/webhooks.js";
import { generateWebhookSecret } from "../server/domain/webhookSecrets.js";
import { createKeyForAccount } from "../server/operator/index.js";
import { cpuOf, postgresCpu, postmasterPid } from "./cpu.js";
import { hasKannel, startKannel } from "./kannel.js";
import { machine, printTopStatements, root, serveProcess, startBenchDatabase, startWorkers, writeResult } from "./lib.js";
import { bindClientApp, startSmppServerProcess, type ClientApp, type SmppServerProcess } from "./smppClientApp.js";
import { createSmppCredential } from "../server/operator/index.js";
import { changeAccount, creditOf, putPriceList } from "../server/billing/index.js";
import { readWriteCounters, STATS_SETTLE_MS, type WriteCounters, writesPerMessage, type WritesPerMessage } from "./writes.js";

const list = (name: string, fallback: string) => (process.env[name] ?? fallback).split(",").filter(Boolean);
const COUNTS = list("BENCH_MESSAGES", "5000,20000").map(Number);
const WINDOWS = list("BENCH_WINDOWS", "10,100").map(Number);
const WORKERS = list("BENCH_WORKERS", "1,2").map(Number);
type Mode = "one-by-one" | "campaign" | "smpp-client";
const MODES = list("BENCH_MODES", "one-by-one,campaign") as Mode[];
/** The result file's name: bench/results/<name>.json (bench:smpp-server writes smpp-server). */
const RESULT = process.env.BENCH_RESULT ?? "smpp";
/** Connectors the catch-all route splits between (docs/ROUTING.md): 1, or 2 at 50/50 (both to the same SMSC). */
const CONNECTORS = list("BENCH_CONNECTORS", "1").map(Number);
/**
 * Each connector's `sessions`, binds for the whole service (docs/ROUTING.md, "Sessions"): as many as workers by
 * default (one each); BENCH_SESSIONS=1 with two workers measures a worker handing its messages to the holder.
 */
const SESSIONS = process.env.BENCH_SESSIONS ? Number(process.env.BENCH_SESSIONS) : undefined;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const KANNEL = process.env.BENCH_KANNEL !== "0";
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 600_000);
/**
 * BENCH_RECEIPTS ("per-event"; "per-event,batched" adds the case): how the account's webhook takes its receipts,
 * one POST each or in batches of up to 1,000 waiting at most 200 ms (docs/WEBHOOKS.md, "Batches").
 */
const RECEIPTS = list("BENCH_RECEIPTS", "per-event") as ("per-event" | "batched")[];
const BATCH = { maxEvents: 1000, maxDelayMs: 200 };
/** BENCH_PRICING=1: the bench account prepaid on a price list, every message charged (issue 49's overhead). */
const PRICING = process.env.BENCH_PRICING === "1";

if (KANNEL && !hasKannel())
  process.stderr.write(
    "\n*** bench:smpp: Kannel is not installed (apt-get install kannel kannel-extras): measuring without it, no ratios ***\n\n",
  );
const withKannel = KANNEL && hasKannel();

// The SMSC, its own process.
const smsc = spawn("node", ["--import", "tsx", "bench/smsc.ts"], { cwd: root, stdio: ["pipe", "pipe", "inherit"] });
const smscLines: ((line: string) => void)[] = [];
smsc.stdout.on("data", (c: Buffer) =>
  c
    .toString()
    .split("\n")
    .filter(Boolean)
    .forEach((l) => smscLines.shift()?.(l)),
);
const smscLine = () => new Promise<string>((r) => smscLines.push(r));
const smscPort = Number((await smscLine()).split(" ")[1]);
process.on("exit", () => smsc.kill("SIGTERM"));
async function smscCounts(): Promise<{ submits: number; bound: number }> {
  const line = smscLine();
  smsc.stdin.write("count\n");
  const [, submits, bound] = (await line).split(" ").map(Number);
  return { submits: submits!, bound: bound! };
}
const smscSubmits = async () => (await smscCounts()).submits;

// The receiver: our JSON receipts (POST) and Kannel's DLR calls (GET), each counted once per (message, status).
const seen = new Set<string>();
let received = 0;
let duplicates = 0;
let lastArrival = 0;
let onReceipt: (() => void) | undefined;
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    type Receipt = { messageId: string; status: string };
    let keys: string[];
    if (req.method === "GET") {
      const q = new URL(req.url!, "http://x").searchParams;
      keys = [`${q.get("m")}:${q.get("type")}`];
    } else {
      // One receipt, or a batch of them (BENCH_RECEIPTS=batched).
      const body = JSON.parse(Buffer.concat(chunks).toString()) as Receipt | { events: Receipt[] };
      keys = ("events" in body ? body.events : [body]).map((r) => `${r.messageId}:${r.status}`);
    }
    keys.forEach(count);
    lastArrival = Date.now();
    onReceipt?.();
    res.writeHead(200).end();
  });
});
function count(key: string) {
  if (seen.has(key)) duplicates++;
  else seen.add(key);
  received++;
}
receiver.keepAliveTimeout = 60_000;
await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", () => r()));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

function receiptsIn(total: number, label: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${label}: ${received}/${total} receipts after ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
    const check = () => {
      if (received < total) return;
      clearTimeout(timer);
      onReceipt = undefined;
      resolve();
    };
    onReceipt = check;
    check();
  });
}

function resetReceiver() {
  seen.clear();
  received = 0;
  duplicates = 0;
}

/** Runs `send(i)` for i < n, `concurrency` at a time; each must resolve with a 2xx response. */
async function inParallel(n: number, send: (i: number) => Promise<Response>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < n) {
      const i = next++;
      const res = await send(i);
      if (res.status >= 300) throw new Error(`request ${i} answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
}

/** A distinct valid number for each i < 30,000 (+1 415 556-0000 on). */
const to = (i: number) => `+141555${6 + (Math.floor(i / 10_000) % 3)}${String(i % 10_000).padStart(4, "0")}`;

/** The SMSC's ceiling: a trivial client writing n submit_sm at `window` and acknowledging the receipts. */
async function ceiling(n: number, window: number): Promise<number> {
  const session = smpp.connect({ url: `smpp://127.0.0.1:${smscPort}` });
  session.socket.setNoDelay(true);
  await new Promise<void>((r) => session.bind_transceiver({ system_id: "ceiling", password: "x" }, () => r()));
  let receipts = 0;
  const done = new Promise<void>((r) =>
    session.on("deliver_sm", (pdu: PDU) => {
      session.send(pdu.response());
      if (++receipts === n) r();
    }),
  );
  const t0 = performance.now();
  let written = 0;
  let inFlight = 0;
  await new Promise<void>((r) => {
    const pump = () => {
      while (inFlight < window && written < n) {
        inFlight++;
        session.submit_sm({ source_addr: "ACME", destination_addr: to(written++).slice(1), short_message: "ceiling" }, () => {
          inFlight--;
          if (written === n && inFlight === 0) r();
          else pump();
        });
      }
    };
    pump();
  });
  await done;
  const rate = n / ((performance.now() - t0) / 1000);
  session.close();
  return rate;
}

const bench = await startBenchDatabase();
const { db } = bench;
const postmaster = postmasterPid(bench.dataDir);
const smppUrl = `smpp://ours:secret@127.0.0.1:${smscPort}`;
const serviceEnv = {
  PROVIDER: "smpp",
  SMPP_URL: smppUrl,
  SMPP_MAX_PER_SECOND: "1000000",
  WEBHOOK_ALLOW_PRIVATE: "1",
  RATE_LIMIT_PER_SECOND: "0",
  RATE_LIMIT_BULK_PER_SECOND: "0",
};
const account = await ensureAccount(db, "bench-smpp");
if (PRICING) {
  // Every message priced and charged to a prepaid balance (docs/BILLING.md): its balance row is the hot row.
  await putPriceList(db, "bench", { currency: "USD", entries: [{ country: "US", pricePerSegment: 7500 }], default: 7500 });
  await changeAccount(db, account.id, { priceList: "bench", billing: "prepaid" });
  await creditOf(db, account.id, 1_000_000_000_000, "bench");
}
const { key } = await createKeyForAccount(db, "bench-smpp");
const benchWebhook = await insertWebhook(db, account.id, { name: "bench", url: `${receiverUrl}/ours`, secret: generateWebhookSecret() });
const api = await serveProcess("server/main.ts", bench.url, { ...serviceEnv, ROLE: "api" });
const headers = { "content-type": "application/json", authorization: `Bearer ${key}` };
const post = (path: string, body: unknown) => fetch(`${api.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
const groupOf = new Map<number, string>();
/** A group of n contacts (each group its own numbers, +1 212 556-0000 on). */
async function groupOfSize(n: number): Promise<string> {
  if (!groupOf.has(n)) {
    const [group] = await db("groups")
      .insert({ account_id: account.id, name: `bench ${n}` })
      .returning("id");
    await db.raw(
      `WITH c AS (INSERT INTO contacts (account_id, phone, first_name)
                  SELECT ?::uuid, '+1212' || (556 + ? + g / 10000) || lpad((g % 10000)::text, 4, '0'), 'Contact' || g
                    FROM generate_series(0, ? - 1) g RETURNING account_id, id)
       INSERT INTO contact_groups (account_id, contact_id, group_id, position) SELECT account_id, id, ?, 1 FROM c`,
      [account.id, 3 * groupOf.size, n, group.id],
    );
    groupOf.set(n, group.id);
    // The contacts' inserts counted before the round's first reading of the table counters (bench/writes.ts).
    await new Promise((r) => setTimeout(r, STATS_SETTLE_MS));
  }
  return groupOf.get(n)!;
}

interface Round {
  messagesPerSecond: number;
  /** One-by-one: requests answered per second (the API's or sendsms's accept rate under the same load). */
  acceptedPerSecond?: number;
  cpuMsPerMessage: number;
  statementsPerMessage?: number;
  /** Ours: CPU ms per message of the API process, the workers and PostgreSQL (they add up to cpuMsPerMessage). */
  cpuSplit?: { api: number; workers: number; postgres: number };
  /** Ours: WAL bytes and row writes per message, by table (bench/writes.ts). */
  writes?: WritesPerMessage;
}

/**
 * The catch-all route to the `default` connector alone, or split 50/50 with a second one to the same SMSC; each
 * with `sessions` binds.
 */
async function routeTo(connectors: number, sessions: number): Promise<void> {
  const second = (await listConnectors(db)).find((c) => c.name === "second");
  const secondId =
    second?.id ??
    (
      await createConnector(db, {
        name: "second",
        type: "smpp",
        smpp: { host: "127.0.0.1", port: smscPort, systemId: "ours2", password: "secret" },
      })
    ).row.id;
  const first = (await listConnectors(db)).find((c) => c.name === "default")!.id;
  const pool = connectors === 2 ? [{ connectorId: first }, { connectorId: secondId }] : [{ connectorId: first }];
  await replaceRoutes(db, (await routingTable(db)).version, [{ name: "all", match: {}, connectors: pool }]);
  // Every enabled connector binds: the second one is switched off while it is not routed to.
  await changeConnector(db, secondId, { enabled: connectors === 2 }, 0);
  for (const c of await listConnectors(db)) if (c.smpp) await changeConnector(db, c.id, { smpp: { ...c.smpp, sessions } }, 0);
}

/** The SMPP server process and the client application bound to it, once (the first smpp-client round). */
let clientSide: { server: SmppServerProcess; app: ClientApp } | undefined;
async function smppClientSide(): Promise<{ server: SmppServerProcess; app: ClientApp }> {
  if (!clientSide) {
    const client = await ensureAccount(db, "bench-smpp-client");
    await createSmppCredential(db, client.id, { systemId: "benchapp", password: "secret", submitsPerSecond: 10_000, window: 100 });
    const server = await startSmppServerProcess(bench.url, serviceEnv);
    clientSide = { server, app: await bindClientApp(server.port, "benchapp", "secret") };
  }
  return clientSide;
}

async function ours(n: number, window: number, workers: number, mode: Mode, connectors: number): Promise<Round> {
  await db.raw("TRUNCATE jobs, messages, webhook_deliveries, smpp_segments, campaigns, campaign_recipients CASCADE");
  const group = mode === "campaign" ? await groupOfSize(n) : undefined;
  const sessions = SESSIONS ?? workers;
  await routeTo(connectors, sessions);
  const procs = await startWorkers(workers, bench.url, { ...serviceEnv, SMPP_MAX_IN_FLIGHT: String(window) });
  let round: Omit<Round, "writes"> | undefined;
  let counters: WriteCounters | undefined;
  try {
    await waitBound(sessions * connectors);
    if (process.env.BENCH_PG_STATS) await db.raw("SELECT pg_stat_statements_reset()");
    resetReceiver();
    const submitted = await smscSubmits();
    counters = await readWriteCounters(db);
    const client = mode === "smpp-client" ? await smppClientSide() : undefined;
    // The process that accepts the messages: the API, or the SMPP server for the client application.
    const front = client ? client.server.child.pid! : api.child.pid!;
    const pids = [front, ...procs.map((p) => p.child.pid!)];
    const split0 = { api: cpuOf([front]), workers: cpuOf(procs.map((p) => p.child.pid!)), postgres: postgresCpu(postmaster) };
    const cpu0 = split0.api + split0.workers + split0.postgres;
    const t0 = Date.now();
    let acceptedPerSecond: number | undefined;
    if (mode === "one-by-one") {
      await inParallel(n, (i) => post("/api/v1/messages", { to: to(i), from: "ACME", body: `Your code is ${i}` }));
      acceptedPerSecond = Math.round(n / ((Date.now() - t0) / 1000));
    } else if (client) {
      client.app.reset();
      acceptedPerSecond = await client.app.submit(n, window, (i) => to(i).slice(1));
    } else {
      const res = await post("/api/v1/campaigns", {
        name: `bench ${n}`,
        message: "Your code is 1234",
        type: "instant",
        groupId: group,
        from: "ACME",
      });
      if (res.status !== 201) throw new Error(`campaign answered ${res.status}: ${await res.text()}`);
    }
    const label = `ours, ${mode}, ${n} messages, window ${window}, ${workers} worker(s)`;
    let seconds: number;
    if (client) {
      const got = await client.app.receiptsIn(n, TIMEOUT_MS);
      if (got.duplicates > 0) throw new Error(`${label}: ${got.duplicates} receipts reached the client twice`);
      seconds = (got.lastArrival - t0) / 1000;
    } else {
      await receiptsIn(2 * n, label);
      seconds = (lastArrival - t0) / 1000;
    }
    const cpu = cpuOf(pids) + postgresCpu(postmaster) - cpu0;
    const perMessage = (seconds: number) => Number(((seconds * 1000) / n).toFixed(2));
    const cpuSplit = {
      api: perMessage(cpuOf([front]) - split0.api),
      workers: perMessage(cpuOf(procs.map((p) => p.child.pid!)) - split0.workers),
      postgres: perMessage(postgresCpu(postmaster) - split0.postgres),
    };
    process.stderr.write(
      `    CPU ms per message: ${client ? "SMPP server" : "API"} ${cpuSplit.api}, workers ${cpuSplit.workers}, PostgreSQL ${cpuSplit.postgres}\n`,
    );
    const statements = process.env.BENCH_PG_STATS
      ? Number((await db.raw("SELECT sum(calls) AS n FROM pg_stat_statements WHERE query NOT LIKE '%pg_stat_statements%'")).rows[0].n)
      : undefined;
    await printTopStatements(db, `ours, ${mode}, ${n} messages, window ${window}, ${workers} worker(s)`);
    await check(n, (await smscSubmits()) - submitted, "ours");
    const unmatched = Number((await db.raw("SELECT count(*) AS n FROM unmatched_receipts")).rows[0].n);
    const notDelivered = Number((await db.raw("SELECT count(*) AS n FROM messages WHERE status <> 'delivered'")).rows[0].n);
    if (unmatched + notDelivered > 0) throw new Error(`ours: ${unmatched} receipts unmatched, ${notDelivered} messages not delivered`);
    round = {
      messagesPerSecond: Math.round(n / seconds),
      ...(acceptedPerSecond !== undefined ? { acceptedPerSecond } : {}),
      cpuMsPerMessage: Number(((cpu * 1000) / n).toFixed(3)),
      cpuSplit,
      ...(statements !== undefined ? { statementsPerMessage: Number((statements / n).toFixed(1)) } : {}),
    };
  } finally {
    await Promise.all(procs.map((p) => p.stop()));
  }
  // The workers' backends flushed their counters as they ended; the API's flush once idle.
  await new Promise((r) => setTimeout(r, STATS_SETTLE_MS));
  const writes = await writesPerMessage(db, counters, await readWriteCounters(db), n);
  process.stderr.write(
    `    writes per message: ${writes.rowWrites} rows (${writes.nonHotWrites} not HOT), ${writes.walBytes} B of WAL; ${Object.entries(
      writes.tables,
    )
      .map(([t, w]) => `${t} ${w.writes}`)
      .join(", ")}\n`,
  );
  return { ...round, writes };
}

/** Every session the workers share is bound, and only theirs (Kannel and the ceiling's client are gone). */
async function waitBound(sessions: number): Promise<void> {
  for (let i = 0; (await smscCounts()).bound !== sessions; i++) {
    if (i > 200) throw new Error(`the workers did not bind ${sessions} session(s) to the SMSC`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function check(n: number, submits: number, who: string): Promise<void> {
  if (submits !== n) throw new Error(`${who}: the SMSC answered ${submits} submits for ${n} messages`);
  if (duplicates > 0) throw new Error(`${who}: ${duplicates} receipts arrived twice`);
}

async function kannel(n: number, window: number): Promise<Round> {
  const k = await startKannel({ smscPort, window });
  try {
    resetReceiver();
    const submitted = await smscSubmits();
    const cpu0 = cpuOf(k.pids());
    const t0 = Date.now();
    await inParallel(n, (i) => fetch(k.sendsmsUrl(to(i), `Your code is ${i}`, `${receiverUrl}/kannel?m=${i}&type=%d`)));
    const acceptedPerSecond = Math.round(n / ((Date.now() - t0) / 1000));
    await receiptsIn(2 * n, `Kannel, ${n} messages, window ${window}`);
    const seconds = (lastArrival - t0) / 1000;
    const cpu = cpuOf(k.pids()) - cpu0;
    await check(n, (await smscSubmits()) - submitted, "Kannel");
    return { messagesPerSecond: Math.round(n / seconds), acceptedPerSecond, cpuMsPerMessage: Number(((cpu * 1000) / n).toFixed(3)) };
  } finally {
    await k.stop();
  }
}

/** The middle value, or the mean of the two middle ones (two rounds: their mean, not the higher). */
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : Number(((s[mid - 1]! + s[mid]!) / 2).toFixed(3));
}
const summarize = (rounds: Round[]) => ({
  messagesPerSecond: Math.round(median(rounds.map((r) => r.messagesPerSecond))),
  ...(rounds[0]?.acceptedPerSecond !== undefined ? { acceptedPerSecond: median(rounds.map((r) => r.acceptedPerSecond!)) } : {}),
  cpuMsPerMessage: median(rounds.map((r) => r.cpuMsPerMessage)),
  ...(rounds[0]?.statementsPerMessage !== undefined ? { statementsPerMessage: median(rounds.map((r) => r.statementsPerMessage!)) } : {}),
  rounds: rounds.map((r) => r.messagesPerSecond),
  // The writes of the median round by rate (counts vary little between rounds; a mean of tables would mix them).
  ...(rounds[0]?.writes ? { writes: medianRound(rounds).writes, cpuSplit: medianRound(rounds).cpuSplit } : {}),
});
const medianRound = (rounds: Round[]) =>
  [...rounds].sort((a, b) => a.messagesPerSecond - b.messagesPerSecond)[Math.floor((rounds.length - 1) / 2)]!;

const cases: Record<string, unknown>[] = [];
try {
  for (const window of WINDOWS) {
    const smscCeiling = Math.round(await ceiling(20_000, window));
    process.stderr.write(`window ${window}: the SMSC's ceiling with a trivial client: ${smscCeiling} messages/s\n`);
    for (const n of COUNTS) {
      const runs = new Map<string, Round[]>();
      const add = (name: string, r: Round) => {
        runs.set(name, [...(runs.get(name) ?? []), r]);
        process.stderr.write(`  ${n} messages, window ${window}, ${name}: ${r.messagesPerSecond}/s, ${r.cpuMsPerMessage} ms CPU each\n`);
      };
      for (let round = 0; round < ROUNDS; round++) {
        if (withKannel) add("kannel", await kannel(n, window));
        for (const workers of WORKERS)
          for (const connectors of CONNECTORS)
            for (const mode of MODES)
              for (const receipts of mode === "smpp-client" ? ["per-event" as const] : RECEIPTS) {
                await updateWebhook(db, account.id, benchWebhook.id, { batch: receipts === "batched" ? BATCH : null });
                add(
                  `ours ${mode}, ${workers} worker(s)${connectors > 1 ? `, ${connectors} connectors` : ""}${receipts === "batched" ? ", batched receipts" : ""}`,
                  await ours(n, window, workers, mode, connectors),
                );
              }
      }
      const k = runs.has("kannel") ? summarize(runs.get("kannel")!) : undefined;
      const entries = [...runs].filter(([name]) => name !== "kannel");
      cases.push({
        messages: n,
        window,
        smscCeiling,
        ...(k ? { kannel: k } : {}),
        ours: Object.fromEntries(
          entries.map(([name, rounds]) => {
            const s = summarize(rounds);
            return [
              name.replace(/^ours /, ""),
              {
                ...s,
                ...(k
                  ? {
                      rateToKannel: Number((s.messagesPerSecond / k.messagesPerSecond).toFixed(2)),
                      cpuToKannel: Number((s.cpuMsPerMessage / k.cpuMsPerMessage).toFixed(2)),
                    }
                  : {}),
              },
            ];
          }),
        ),
      });
    }
  }
  writeResult(RESULT, {
    machine: await machine(db),
    rounds: ROUNDS,
    concurrency: CONCURRENCY,
    kannel: withKannel,
    pricing: PRICING,
    batchedReceipts: RECEIPTS.includes("batched") ? BATCH : null,
    cases,
  });
} finally {
  clientSide?.app.close();
  await clientSide?.server.stop();
  api.child.kill("SIGTERM");
  smsc.kill("SIGTERM");
  receiver.close();
  await bench.stop();
}
