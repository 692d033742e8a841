// Builds the dashboard (dashboard/ → dashboard/dist) with Vite, and the pre-rendered API reference beside it
// (dashboard/dist/reference/, scripts/renderReference.ts), which /docs serves.
//
//   npm run build:dashboard              always builds
//   node --import tsx scripts/build-dashboard.ts --if-stale   (npm's prestart, and the tests' global setup)
//                                        builds only when the sources changed since the last build
//
// "Changed" is a content hash of every input (the dashboard's sources, the browser-safe client and shared
// domain modules it bundles, and the versions of the build tools), kept in dist/build.json. The build goes to
// a scratch folder that then replaces dist/, so a server never serves a half-written build, and a lock keeps
// two starts from building at once.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { renderReference } from "./renderReference.js";

const root = resolve(import.meta.dirname, "..");
export const dashboardDir = join(root, "dashboard");
export const distDir = join(dashboardDir, "dist");
const lockDir = join(dashboardDir, ".build-lock");

/** Everything the bundle is made from. */
const INPUTS = [
  "dashboard/index.html",
  "dashboard/vite.config.ts",
  "dashboard/tsconfig.json",
  "dashboard/src",
  "client/http.ts",
  "common",
  "node_modules/vite/package.json",
  "node_modules/preact/package.json",
  "node_modules/openapi-fetch/package.json",
  // The reference: the document it renders and what renders it.
  "generated/openapi.json",
  "scripts/renderReference.ts",
  "node_modules/redoc/package.json",
  "node_modules/react-dom/package.json",
  "node_modules/styled-components/package.json",
];

function files(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => files(join(path, name)));
}

export function inputHash(): string {
  const hash = createHash("sha256");
  for (const input of INPUTS) {
    for (const file of files(join(root, input))) {
      hash.update(relative(root, file)).update("\0").update(readFileSync(file)).update("\0");
    }
  }
  return hash.digest("hex");
}

/** True when dist/ holds a build of the current sources. */
export function isFresh(): boolean {
  try {
    const stamp = JSON.parse(readFileSync(join(distDir, "build.json"), "utf8")) as { inputHash?: string };
    return stamp.inputHash === inputHash() && existsSync(join(distDir, "index.html"));
  } catch {
    return false;
  }
}

async function withLock<T>(fn: () => Promise<T>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      // A lock left by a build that died long ago is taken over.
      if (Date.now() - statSync(lockDir).mtimeMs > timeoutMs) {
        rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`another dashboard build holds ${lockDir}; remove it if no build runs`, { cause: error });
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

export interface BuildResult {
  built: boolean;
  ms: number;
}

/** Builds dist/ (when `ifStale`, only if the sources changed). */
export async function buildDashboard({ ifStale = false, quiet = false } = {}): Promise<BuildResult> {
  const t0 = Date.now();
  if (ifStale && isFresh()) return { built: false, ms: Date.now() - t0 };
  return withLock(async () => {
    // Someone else may have built it while this waited for the lock.
    if (ifStale && isFresh()) return { built: false, ms: Date.now() - t0 };
    const hash = inputHash();
    const scratch = join(dashboardDir, `.dist-${process.pid}`);
    rmSync(scratch, { recursive: true, force: true });
    const { build } = await import("vite");
    // Always the production build: Vite builds for the NODE_ENV it finds, and the tests' global setup runs with
    // NODE_ENV=test, which would ship the development builds of the libraries (bigger, and not what users get).
    const nodeEnv = process.env.NODE_ENV;
    process.env.NODE_ENV = "production";
    try {
      await build({
        configFile: join(dashboardDir, "vite.config.ts"),
        mode: "production",
        logLevel: quiet ? "warn" : "info",
        build: { outDir: scratch, emptyOutDir: true },
      });
      // React's production build renders the reference too.
      await renderReference(join(root, "generated/openapi.json"), join(scratch, "reference"));
    } finally {
      if (nodeEnv === undefined) delete process.env.NODE_ENV;
      else process.env.NODE_ENV = nodeEnv;
    }
    writeFileSync(join(scratch, "build.json"), `${JSON.stringify({ inputHash: hash, builtAt: new Date().toISOString() }, null, 2)}\n`);
    const old = join(dashboardDir, `.dist-old-${process.pid}`);
    if (existsSync(distDir)) renameSync(distDir, old);
    renameSync(scratch, distDir);
    rmSync(old, { recursive: true, force: true });
    return { built: true, ms: Date.now() - t0 };
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const ifStale = process.argv.includes("--if-stale");
  try {
    const { built, ms } = await buildDashboard({ ifStale, quiet: ifStale });
    if (built) console.log(`dashboard built into dashboard/dist in ${ms} ms`);
  } catch (error) {
    console.error("dashboard build failed:", error);
    // Before `npm start` a broken dashboard build must not keep the API from starting: /dashboard then
    // answers 503 saying so. `npm run build:dashboard` fails loudly.
    if (ifStale) console.error("starting without the dashboard (/dashboard answers 503)");
    else process.exit(1);
  }
}
