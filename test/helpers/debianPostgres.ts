// A throwaway cluster of Debian's own PostgreSQL server package (postgresql-NN), configured as Debian ships it
// unless told otherwise: JIT on where the package has its LLVM library, unlike the embedded server the suite
// runs on. Used where the suite's server cannot stand in: a pg_dump older than it (backup-restore), a stock
// server with JIT (stock-postgres), and bench:stock-postgres. Runs the server as `postgres` when we are root
// (PostgreSQL refuses root).
import { execFileSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../server/db/embedded.js";

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
  asPostgres(`${bin}/pg_ctl`, ["-D", `${dir}/data`, "-w", "-l", `${dir}/log`, "-o", `-p ${port} -k ${dir} ${options}`, "start"]);
  return {
    major,
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      try {
        asPostgres(`${bin}/pg_ctl`, ["-D", `${dir}/data`, "-m", "fast", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
