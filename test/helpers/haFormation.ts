// The pg_auto_failover formation of ops/ha/formation.sh (a monitor and two nodes with synchronous replication),
// driven through that script, so that what the chaos test and bench:failover run is what OPERATIONS.md tells
// an operator to run.
import { execFile } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { systemPackagePresent } from "./systemPackage.js";

const run = promisify(execFile);
const SCRIPT = "ops/ha/formation.sh";

/** True when pg_autoctl is there (else a loud notice, or an error under CI=true). */
export const formationAvailable = (neededBy: string) =>
  systemPackagePresent({ neededBy, command: "pg_autoctl", debianPackage: "pg-auto-failover-cli postgresql-15-auto-failover" });

export interface Formation {
  /** The DATABASE_URL of the formation: both nodes, target_session_attrs=read-write. */
  url: string;
  /** Each node's state line, as the monitor sees it. */
  state(): Promise<string>;
  /** The node that is primary now and takes writes ("node1" or "node2"), if any. */
  writableNode(): Promise<string | undefined>;
  /** SIGKILLs the primary's PostgreSQL and its keeper; returns the node killed. */
  killPrimary(): Promise<string>;
  stop(): Promise<void>;
}

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createServer()
      .once("error", () => resolve(false))
      .listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });

/**
 * Three consecutive free ports from a random base (the monitor's and each node's), below the kernel's range for
 * outgoing connections and "any free port" (32768 up): there, a port free when checked could be taken by a client
 * or another test's server before the node binds it, or while a killed node is down.
 */
async function freeBasePort(): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 12_000);
    if ((await portFree(base)) && (await portFree(base + 1)) && (await portFree(base + 2))) return base;
  }
}

/** Starts a formation in a directory of its own; HA_FAST=1, so the monitor decides within seconds. */
export async function startFormation(): Promise<Formation> {
  const dir = mkdtempSync(join(tmpdir(), "sms-ha-"));
  chmodSync(dir, 0o755);
  const script = async (...args: string[]) =>
    (await run("bash", [SCRIPT, ...args], { env: { ...process.env, HA_FAST: "1" }, maxBuffer: 1 << 20 })).stdout.trim();
  let url: string;
  try {
    url = (await script("start", dir, String(await freeBasePort()))).split("\n").pop()!;
  } catch (error) {
    await script("stop", dir).catch(() => undefined);
    throw error;
  }
  const state = () => script("state", dir);
  return {
    url,
    state,
    async writableNode() {
      const line = (await state().catch(() => "")).split("\n").find((l) => /read-write\s*\|\s*(wait_primary|primary)\s*\|/.test(l));
      return line?.split("|")[0]!.trim();
    },
    killPrimary: () => script("kill-primary", dir, "--no-wait"),
    async stop() {
      await script("stop", dir).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
