import { defineConfig } from "vitest/config";

// The sustained-load test measures that the API really takes 300 requests/s for a minute; with the other files
// running beside it on a 2-core machine it cannot, so it runs alone, after everything else (its own project,
// a later group). The global setup (one embedded PostgreSQL) is the root's, run once for both projects.
const ALONE = ["test/chaos/sustained-load.test.ts"];
// What needs only one Node: CI runs the other projects on every Node line and this one once (.ci/run).
const ONCE = ["test/e2e/dashboard*.test.ts", "test/deploy/production-build.test.ts"];
const common = { pool: "forks", testTimeout: 30_000, hookTimeout: 60_000 } as const;

export default defineConfig({
  test: {
    globalSetup: ["test/setup/postgres.ts", "test/setup/dashboard.ts"],
    reporters: ["default"],
    projects: [
      { test: { ...common, name: "suite", include: ["test/**/*.test.ts"], exclude: [...ALONE, ...ONCE] } },
      { test: { ...common, name: "once", include: ONCE } },
      { test: { ...common, name: "alone", include: ALONE, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
