// The machine a newcomer has (reported twice as broken): as root, `git clone` into a fresh `mktemp -d` (mode
// 0700, out of the reach of the user "postgres"), `npm ci`, `npm start`: ready, and a message scheduled with
// the printed key. Then that clone is deleted, the project cloned again elsewhere and started: ready again.
// Nothing is placed beforehand (a fresh EMBEDDED_PLACEMENT_DIR), no node_modules copied: what the first start
// placed outside its clone must not point into it (a copy that linked pg into the first clone broke every later
// start once it was gone).
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../server/db/embedded.js";
import { spawnProcess, type Spawned } from "../helpers/process.js";
import { waitUntil } from "../helpers/wait.js";

const root = resolve(import.meta.dirname, "../..");
const scratch: string[] = [];
const running: Spawned[] = [];
const isRoot = process.getuid?.() === 0;
if (!isRoot) console.warn("NOTICE: the newcomer test runs as root only (a fresh machine's user); skipped as this user");

afterAll(() => {
  for (const p of running) p.child.kill("SIGKILL");
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** A fresh private directory, as `mktemp -d` makes it (0700). */
function privateDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "newcomer-"));
  chmodSync(dir, 0o700);
  scratch.push(dir);
  return dir;
}

function cloneAndInstall(): string {
  const clone = join(privateDir(), "sms-platform");
  execFileSync("git", ["clone", "--quiet", root, clone], { stdio: "pipe" });
  execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: clone, stdio: "pipe", timeout: 300_000 });
  return clone;
}

async function startAndSchedule(clone: string, placement: string): Promise<void> {
  const port = await freePort();
  const env = { PORT: String(port), EMBEDDED_PLACEMENT_DIR: placement, DATABASE_URL: "", NODE_ENV: "", PROVIDER: "", SMPP_URL: "" };
  // The README's command, in the clone, as typed there.
  const start = spawnProcess("sh", ["-c", `cd '${clone}' && exec npm start`], env);
  running.push(start);
  const [, key] = await start.waitFor(/API key:\s+(sms_\S+)/, 240_000);
  const base = `http://127.0.0.1:${port}`;
  await waitUntil("ready", async () => (await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200, 120_000, 250);
  const res = await fetch(`${base}/api/v1/scheduler/schedule`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify({ to: "+14155550123", from: "ACME", body: "hello", scheduledAt: new Date(Date.now() + 3600_000).toISOString() }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  start.child.kill("SIGTERM");
  expect(await start.exited).toBe(0);
}

describe.skipIf(!isRoot)("a newcomer's first minutes, as root", { timeout: 900_000 }, () => {
  it("clone, npm ci, npm start: ready and sending; the clone deleted, another clone starts too", async () => {
    const placement = mkdtempSync(join(tmpdir(), "placement-"));
    chmodSync(placement, 0o755);
    scratch.push(placement);
    const first = cloneAndInstall();
    await startAndSchedule(first, placement);
    rmSync(resolve(first, ".."), { recursive: true, force: true });
    const second = cloneAndInstall();
    await startAndSchedule(second, placement);
  });
});
