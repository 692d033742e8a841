// npm run build: the production build in dist/, which runs with `node` alone after `npm ci --omit=dev`.
//
//   dist/server/main.js        the server (npm run start:built)
//   dist/scripts/migrate.js    the migrate step (npm run migrate:built)
//   dist/scripts/keys.js       the keys CLI (npm run keys:built)
//   dist/scripts/healthcheck.js  the container HEALTHCHECK (GET /readyz on PORT)
//   dist/generated/openapi.*   the OpenAPI document the server validates against and serves
//   dist/dashboard/dist/       the built dashboard
//
// dist/ mirrors the source layout, so the server finds generated/ and dashboard/dist/ relative to its own
// modules exactly as it does when run from TypeScript.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { buildDashboard, distDir as dashboardDist } from "./build-dashboard.js";

const root = resolve(import.meta.dirname, "..");
const out = join(root, "dist");
const t0 = Date.now();

rmSync(out, { recursive: true, force: true });
execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "tsconfig.build.json")], {
  stdio: "inherit",
});
mkdirSync(join(out, "generated"), { recursive: true });
for (const file of ["openapi.json", "openapi.yaml"]) cpSync(join(root, "generated", file), join(out, "generated", file));
await buildDashboard({ ifStale: true, quiet: true });
cpSync(dashboardDist, join(out, "dashboard/dist"), { recursive: true });
console.log(`built dist/ in ${Date.now() - t0} ms`);
