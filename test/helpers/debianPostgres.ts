// A throwaway cluster of Debian's own PostgreSQL server package (postgresql-NN), configured as Debian ships it
// unless told otherwise: JIT on where the package has its LLVM library, unlike the embedded server the suite
// runs on. Used where the suite's server cannot stand in: a pg_dump older than it (backup-restore), a stock
// server with JIT (stock-postgres), and bench:stock-postgres. Runs the server as `postgres` when we are root
// (PostgreSQL refuses root).
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../server/db/embedded.js";
import { systemPackagePresent } from "./systemPackage.js";

const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const asRoot = () => process.getuid?.() === 0;
const asPostgres = (cmd: string, args: string[]) => (asRoot() ? sh("runuser", ["-u", "postgres", "--", cmd, ...args]) : sh(cmd, args));

/** The major versions of Debian's PostgreSQL server packages installed, newest first. */
export function debianServerMajors(): number[] {
  if (!existsSync("/usr/lib/postgresql")) return [];
  return readdirSync("/usr/lib/postgresql")
    .map(Number)
    .filter((m) => m > 0 && existsSync(`/usr/lib/postgresql/${m}/bin/initdb`))
    .sort((a, b) => b - a);
}

/** Whether that server package can compile with JIT (its LLVM library is there). */
export const debianServerHasJit = (major: number) => existsSync(`/usr/lib/postgresql/${major}/lib/llvmjit.so`);

export interface DebianPostgres {
  major: number;
  /** postgres://postgres@127.0.0.1:port/postgres (trust authentication, loopback only). */
  adminUrl: string;
  port: number;
  /** The cluster's data directory. */
  dataDir: string;
  /** Kills the postmaster with SIGKILL, as a crash of its machine would (its files stay, for stop() to remove). */
  kill(): void;
  stop(): void;
}

/** initdb and start a cluster of `major` on a free port; `settings` become -c options. */
export async function startDebianPostgres(major: number, settings: Record<string, string> = {}): Promise<DebianPostgres> {
  const bin = `/usr/lib/postgresql/${major}/bin`;
  const dir = mkdtempSync(join(tmpdir(), "sms-debian-pg-"));
  chmodSync(dir, 0o755);
  if (asRoot()) chownSync(dir, Number(sh("id", ["-u", "postgres"]).trim()), Number(sh("id", ["-g", "postgres"]).trim()));
  asPostgres(`${bin}/initdb`, ["-D", `${dir}/data`, "-U", "postgres", "--auth=trust", "--no-sync"]);
  const port = await freePort();
  const options = Object.entries({ listen_addresses: "127.0.0.1", fsync: "off", ...settings })
    .map(([k, v]) => `-c ${k}=${v}`)
    .join(" ");
  return startCluster(major, dir, port, options);
}

function startCluster(major: number, dir: string, port: number, options: string): DebianPostgres {
  const bin = `/usr/lib/postgresql/${major}/bin`;
  asPostgres(`${bin}/pg_ctl`, ["-D", `${dir}/data`, "-w", "-l", `${dir}/log`, "-o", `-p ${port} -k ${dir} ${options}`, "start"]);
  let killed = false;
  return {
    major,
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dataDir: `${dir}/data`,
    kill() {
      // The postmaster's children first, so none lives on to serve a connection after it is gone.
      const pid = Number(readFileSync(`${dir}/data/postmaster.pid`, "utf8").split("\n")[0]);
      spawnSync("pkill", ["-KILL", "-P", String(pid)]);
      process.kill(pid, "SIGKILL");
      killed = true;
    },
    stop() {
      try {
        if (!killed) asPostgres(`${bin}/pg_ctl`, ["-D", `${dir}/data`, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * A streaming standby of `primary`, made with pg_basebackup -R and started on a free port. With `synchronous`,
 * the primary waits for it at each commit (synchronous_standby_names = '*'), as a pg_auto_failover pair does.
 */
export async function startDebianStandby(
  primary: DebianPostgres,
  opts: { synchronous?: boolean } = {},
): Promise<DebianPostgres & { promote(): void }> {
  const bin = `/usr/lib/postgresql/${primary.major}/bin`;
  const dir = mkdtempSync(join(tmpdir(), "sms-debian-standby-"));
  chmodSync(dir, 0o755);
  if (asRoot()) chownSync(dir, Number(sh("id", ["-u", "postgres"]).trim()), Number(sh("id", ["-g", "postgres"]).trim()));
  asPostgres(`${bin}/pg_basebackup`, [
    "-h",
    "127.0.0.1",
    "-p",
    String(primary.port),
    "-U",
    "postgres",
    "-D",
    `${dir}/data`,
    "-R",
    "-X",
    "stream",
    "--checkpoint=fast",
    "--no-sync",
  ]);
  const port = await freePort();
  const standby = startCluster(primary.major, dir, port, "-c listen_addresses=127.0.0.1 -c fsync=off");
  if (opts.synchronous) {
    sh("psql", [primary.adminUrl, "-qAtc", "ALTER SYSTEM SET synchronous_standby_names = '*'"]);
    sh("psql", [primary.adminUrl, "-qAtc", "SELECT pg_reload_conf()"]);
  }
  return { ...standby, promote: () => asPostgres(`${bin}/pg_ctl`, ["-D", `${dir}/data`, "-w", "promote"]) };
}

/**
 * The newest Debian server package's major, and whether it can make a standby (pg_basebackup is there): else a
 * loud notice naming the package, or under CI=true an error (helpers/systemPackage.ts).
 */
export function debianStandbyAvailable(neededBy: string): { major: number; available: boolean } {
  const major = debianServerMajors()[0] ?? 15;
  const available = systemPackagePresent({
    neededBy: `${neededBy} (a standby made with pg_basebackup)`,
    file: `/usr/lib/postgresql/${major}/bin/pg_basebackup`,
    debianPackage: `postgresql-${major}`,
  });
  return { major, available };
}

/**
 * A primary holding an empty database `app`, and a streaming standby of it (synchronous if asked): the pair the
 * failover and read-standby tests run on. The caller stops both.
 */
export async function startDebianPair(
  major: number,
  opts: { synchronous?: boolean } = {},
): Promise<{ primary: DebianPostgres; standby: DebianPostgres & { promote(): void } }> {
  const primary = await startDebianPostgres(major);
  try {
    sh("psql", [primary.adminUrl, "-qAtc", "CREATE DATABASE app"]);
    return { primary, standby: await startDebianStandby(primary, opts) };
  } catch (error) {
    primary.stop();
    throw error;
  }
}
