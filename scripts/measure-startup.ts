// npm run measure:startup [-- --dist DIR [--dist OTHER]] [--runs N] [--roles all,api,worker]
//
// How fast the production build starts past the database: an embedded PostgreSQL (or DATABASE_URL) is started
// and migrated first, then `node DIR/server/main.js` is started RUNS times per ROLE with plain `node` (no loader,
// no NODE_OPTIONS). Several --dist folders (e.g. an older build) take turns run by run, so they share the
// machine's load. Reported per role, as min / median / max over the runs:
//   startupMs   what the process logs: time since the process started until it listens (api, all) or its job
//               runner runs (worker), database connection and migration check included
//   startCpuMs  CPU time the process had used by then (user + system, all its threads; Linux, 10 ms steps):
//               on a busy machine a steadier figure than the wall-clock ones
//   firstMs     the first API request, sent once it listens (GET /api/v1/messages with a key: authenticated,
//               validated, queried)
//   servedMs    spawn until that first response: the whole cold start as a client sees it
//   servedCpuMs CPU time the process had used by then
//   secondMs    the same request again, for comparison with the first
// Build first (`npm run build`). Nothing is asserted: timings depend on the machine and its load.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { freePort, startEmbeddedPostgres } from "../server/db/embedded.js";
import { createDb, migrateLatest } from "../server/db/knex.js";
import { createLogger } from "../server/logger.js";
import { createKeyForAccount } from "../server/operator/index.js";

const root = resolve(import.meta.dirname, "..");
const { values } = parseArgs({
  options: {
    dist: { type: "string", multiple: true, default: ["dist"] },
    runs: { type: "string", default: "5" },
    roles: { type: "string", default: "all,api,worker" },
  },
});
const mains = values.dist.map((dir) => join(resolve(root, dir), "server/main.js"));
const runs = Number(values.runs);
const roles = values.roles.split(",");

const log = createLogger("warn");
const embedded = process.env.DATABASE_URL
  ? undefined
  : await startEmbeddedPostgres({ dataDir: join(root, ".scratch/measure-db"), log, announce: false });
const databaseUrl = process.env.DATABASE_URL ?? embedded!.url;
const db = createDb(databaseUrl, 2);
await migrateLatest(db);
const { key } = await createKeyForAccount(db, "measure-startup");
await db.destroy();

interface Sample {
  startupMs: number;
  startCpuMs?: number;
  firstMs?: number;
  servedMs?: number;
  servedCpuMs?: number;
  secondMs?: number;
}

/** CPU time a process has used so far, from /proc (undefined elsewhere). */
function cpuMsOf(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in 100 Hz ticks
  } catch {
    return undefined;
  }
}

async function timedGet(url: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(url, { headers: { Authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
  return performance.now() - t0;
}

async function startOnce(main: string, role: string): Promise<Sample> {
  const port = await freePort();
  const env = {
    ...process.env,
    NODE_OPTIONS: "",
    NODE_ENV: "production",
    PROVIDER: "simulator",
    ALLOW_SIMULATOR_IN_PRODUCTION: "1",
    LOG_LEVEL: "info",
    DATABASE_URL: databaseUrl,
    ROLE: role,
    PORT: String(port),
    HOST: "127.0.0.1",
  };
  const t0 = performance.now();
  const child = spawn(process.execPath, [main], { env, stdio: ["ignore", "pipe", "inherit"] });
  // A worker logs "started" with startupMs; an older build's worker only "job runner started", without it: then
  // startupMs is taken from outside (spawn until that line, a few tens of ms more than the process sees).
  const ready = role === "worker" ? /"msg":"(job runner )?started"/ : /listening on/;
  let out = "";
  let seen: { ms: number; cpuMs?: number } | undefined;
  const line = await new Promise<string>((resolveLine, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const lines = out.split("\n").filter((l) => ready.test(l));
      if (!lines.length) return;
      seen ??= { ms: performance.now() - t0, cpuMs: cpuMsOf(child.pid!) };
      const withStartup = lines.find((l) => l.includes('"startupMs"'));
      if (withStartup) resolveLine(withStartup);
      else setTimeout(() => resolveLine(lines[0]!), 100);
    });
    child.once("exit", (code) => reject(new Error(`${main} exited with ${code} before it was ready:\n${out}`)));
  });
  const sample: Sample = { startupMs: Number(/"startupMs":(\d+)/.exec(line)?.[1] ?? seen!.ms), startCpuMs: seen!.cpuMs };
  if (role !== "worker") {
    const url = `http://127.0.0.1:${port}/api/v1/messages?limit=1`;
    sample.firstMs = await timedGet(url);
    sample.servedMs = performance.now() - t0;
    sample.servedCpuMs = cpuMsOf(child.pid!);
    sample.secondMs = await timedGet(url);
  }
  child.kill("SIGTERM");
  await new Promise((resolveExit) => child.once("exit", resolveExit));
  return sample;
}

function spread(values: (number | undefined)[]): string {
  const sorted = values.filter((v): v is number => v !== undefined && !Number.isNaN(v)).sort((a, b) => a - b);
  if (!sorted.length) return "-";
  const median = sorted[Math.floor(sorted.length / 2)]!;
  return `${Math.round(sorted[0]!)} / ${Math.round(median)} / ${Math.round(sorted.at(-1)!)}`;
}

try {
  console.log(`Node ${process.versions.node}, ${runs} runs per role and build (min / median / max, ms)`);
  for (const role of roles) {
    const samples = mains.map((): Sample[] => []);
    for (let i = 0; i < runs; i++) for (const [b, main] of mains.entries()) samples[b]!.push(await startOnce(main, role));
    for (const [b, main] of mains.entries()) {
      const keys = ["startupMs", "startCpuMs", "firstMs", "servedMs", "servedCpuMs", "secondMs"] as const;
      const columns = keys.map((k) => `${k} ${spread(samples[b]!.map((s) => s[k]))}`);
      console.log(`ROLE=${role.padEnd(6)} ${relative(root, main).padEnd(28)} ${columns.join("  ")}`);
    }
  }
} finally {
  await embedded?.stop();
}
