// CPU time of processes from /proc (user + system, in seconds), for CPU per message in bench:smpp.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Clock ticks per second of /proc's times (USER_HZ: 100 on every Linux build this runs on). */
const TICKS = 100;

interface Stat {
  ppid: number;
  /** Its own user + system time. */
  own: number;
  /** Its reaped children's user + system time. */
  children: number;
}

function stat(pid: number): Stat | undefined {
  let line: string;
  try {
    line = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined; // exited
  }
  // The fields after the command's closing parenthesis: state, ppid, … utime (14th field), stime, cutime, cstime.
  const f = line.slice(line.lastIndexOf(")") + 2).split(" ");
  return { ppid: Number(f[1]), own: (Number(f[11]) + Number(f[12])) / TICKS, children: (Number(f[13]) + Number(f[14])) / TICKS };
}

/** CPU seconds of these processes so far (own time only). */
export function cpuOf(pids: number[]): number {
  return pids.reduce((sum, pid) => sum + (stat(pid)?.own ?? 0), 0);
}

/** The PostgreSQL server's process id, from the postmaster.pid in its data directory or a directory in it. */
export function postmasterPid(dataDir: string): number {
  const dirs = [
    dataDir,
    ...readdirSync(dataDir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => join(dataDir, d.name)),
  ];
  const file = dirs.map((d) => join(d, "postmaster.pid")).find((f) => existsSync(f));
  if (!file) throw new Error(`no postmaster.pid in ${dataDir}`);
  return Number(readFileSync(file, "utf8").split("\n")[0]);
}

/**
 * CPU seconds of a PostgreSQL server so far: the postmaster, its live children (backends, background workers)
 * and the children it has reaped (backends that ended).
 */
export function postgresCpu(postmaster: number): number {
  const root = stat(postmaster);
  if (!root) return 0;
  let sum = root.own + root.children;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const s = stat(Number(name));
    if (s?.ppid === postmaster) sum += s.own;
  }
  return sum;
}
