// `npm start` as an operator runs it: no DATABASE_URL, so an embedded PostgreSQL under DATA_DIR.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, isAlive } from "../../server/db/embedded.js";
import { run, spawnProcess } from "../helpers/process.js";

const dataDir = mkdtempSync(join(tmpdir(), "sms-start-"));
// Run as root, PostgreSQL runs as the "postgres" user, which must be able to reach the data directory.
chmodSync(dataDir, 0o755);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function start() {
  const port = await freePort();
  const proc = spawnProcess("npm", ["start"], {
    DATA_DIR: dataDir,
    PORT: String(port),
    DATABASE_URL: "",
    LOG_LEVEL: "info",
    NODE_ENV: "development",
  });
  await proc.waitFor(/listening on/, 60_000);
  return { proc, base: `http://127.0.0.1:${port}` };
}

async function stop(proc: ReturnType<typeof spawnProcess>) {
  const t0 = Date.now();
  proc.child.kill("SIGTERM");
  const code = await proc.exited;
  return { code, ms: Date.now() - t0 };
}

describe("npm start on the embedded database", { timeout: 90_000 }, () => {
  it("starts, prints a first-start key, serves, shares its database with the keys CLI, and stops on SIGTERM", async () => {
    const { proc, base } = await start();
    const [, firstKey] = proc.output().match(/API key:\s+(sms_[0-9A-Za-z]{12}_[0-9A-Za-z]{32})/) ?? [];
    expect(firstKey).toBeDefined();
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/api/v1/webhooks`, { headers: { Authorization: `Bearer ${firstKey}` } })).status).toBe(200);

    // While the server runs, the CLI connects to its embedded database instead of starting a second one.
    const created = await run("npm", ["run", "--silent", "keys", "--", "create", "--account", "ops"], {
      DATA_DIR: dataDir,
      DATABASE_URL: "",
    });
    expect(created.code).toBe(0);
    const key = created.stdout.trimEnd().split("\n").at(-1)!;
    expect((await fetch(`${base}/api/v1/webhooks`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(200);

    const { code, ms } = await stop(proc);
    expect(code).toBe(0);
    expect(ms).toBeLessThan(10_000);
    expect(existsSync(join(dataDir, "postgres.json"))).toBe(false);
  });

  it("keeps its data across restarts and prints no second first-start key", async () => {
    const { proc, base } = await start();
    expect(proc.output()).not.toMatch(/First start/);
    const listed = await run("npm", ["run", "--silent", "keys", "--", "list"], { DATA_DIR: dataDir, DATABASE_URL: "" });
    expect(listed.stdout).toMatch(/\tdefault\t/);
    expect(listed.stdout).toMatch(/\tops\t/);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await stop(proc)).code).toBe(0);
  });

  it("after a SIGKILL left its PostgreSQL running, the next start stops that orphan and starts cleanly", async () => {
    const first = await start();
    // The server process (not npm) owns the embedded PostgreSQL; killing it leaves the postmaster behind.
    const { pid: serverPid } = JSON.parse(readFileSync(join(dataDir, "postgres.json"), "utf8")) as { pid: number };
    const postmasterPid = Number(readFileSync(join(dataDir, "pg", "postmaster.pid"), "utf8").split("\n")[0]);
    process.kill(serverPid, "SIGKILL");
    await first.proc.exited;
    expect(isAlive(postmasterPid)).toBe(true);

    const second = await start();
    expect(second.proc.output()).toMatch(/stopped an orphaned embedded PostgreSQL/);
    expect(isAlive(postmasterPid)).toBe(false);
    expect((await fetch(`${second.base}/readyz`)).status).toBe(200);
    expect((await stop(second.proc)).code).toBe(0);
  });
});

// Root in a container or a fresh VM: PostgreSQL refuses to run as root, so the embedded one runs as the
// "postgres" user, who cannot enter a directory only root can (mkdtemp makes one, mode 0700).
const asRoot = process.getuid?.() === 0;
if (!asRoot) process.stderr.write("skipping the npm start as root test: it needs to run as root\n");
describe.skipIf(!asRoot)("npm start as root with DATA_DIR where the postgres user cannot go", { timeout: 90_000 }, () => {
  it("exits 1 saying in one sentence what to do, without an unhandled error", async () => {
    const rootOnly = mkdtempSync(join(tmpdir(), "sms-root-only-"));
    try {
      const port = await freePort();
      const proc = spawnProcess("npm", ["start"], {
        DATA_DIR: join(rootOnly, "data"),
        PORT: String(port),
        DATABASE_URL: "",
        LOG_LEVEL: "info",
      });
      const code = await proc.exited;
      expect(code).toBe(1);
      const output = proc.output();
      expect(output).toMatch(
        /the embedded PostgreSQL runs as the user "postgres", who cannot reach .*sms-root-only-.*: run npm start as a user other than root, give "postgres" access to that path, or set DATABASE_URL\./,
      );
      expect(output).not.toMatch(/Unhandled|EACCES|at .*\.js:\d+/);
    } finally {
      rmSync(rootOnly, { recursive: true, force: true });
    }
  });
});
