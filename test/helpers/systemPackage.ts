// Some tests need a program the operating system provides, not npm: Chromium for the dashboard, Net::SMPP's
// example SMSC for the independent peer. Without it, `npm test` after `npm ci` still passes: the file's tests
// skip with a loud notice naming the Debian package. Under CI=true the absence fails the file instead, so a
// CI run never passes by skipping.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

export interface SystemPackage {
  /** What needs it, e.g. "the dashboard tests". */
  neededBy: string;
  /** A file the package installs, or a command it puts on the PATH (run with --version). */
  file?: string;
  command?: string;
  /** The Debian package that provides it. */
  debianPackage: string;
}

/** True when the package is there; otherwise a notice (false) or, under CI=true, an error. */
export function systemPackagePresent(p: SystemPackage, env: NodeJS.ProcessEnv = process.env): boolean {
  const present = p.file ? existsSync(p.file) : spawnSync(p.command!, ["--version"], { stdio: "ignore" }).status === 0;
  if (present) return true;
  const notice = `${p.neededBy} need ${p.file ?? p.command}, which is absent: apt-get install ${p.debianPackage}`;
  if (env.CI === "true") throw new Error(`${notice} (CI=true: a missing system package fails instead of skipping)`);
  const bar = "!".repeat(Math.min(100, notice.length + 9));
  process.stderr.write(`\n${bar}\nSKIPPED: ${notice}\n${bar}\n\n`);
  return false;
}
