import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import SlowFirstSequencer from "./test/setup/slowFirst.js";

// The sustained-load test measures that the API really takes 300 requests/s for a minute; with the other files
// running beside it on a 2-core machine it cannot, so it runs alone, after everything else (its own project,
// a later group). The global setup (one embedded PostgreSQL) is the root's, run once for both projects.
const ALONE = ["test/chaos/sustained-load.test.ts"];
// What needs only one Node: CI runs the "suite" project on every Node line and these once, on the LTS the
// container runs (.ci/run). The chaos tests kill and restart our processes, PostgreSQL and the SMPP peer: what
// they prove is about processes and the database, not the Node line, and they are the slowest files of the
// suite, so running them once keeps CI within its time budget (every other test still runs on every line).
const ONCE = [
  "test/e2e/dashboard*.test.ts",
  // A browser too: what a page shows does not change with the server's Node line.
  "test/e2e/reference-page.test.ts",
  "test/deploy/production-build.test.ts",
  // npm pack, npm install and tsc: heavy on both cores, beside timing-sensitive engine tests in the suite.
  "test/deploy/client-package.test.ts",
  "test/newcomer/*.test.ts",
];
const CHAOS = ["test/chaos/*.test.ts"];
// The longest files start first (test/setup/slowFirst.ts), so none is left running alone at the end.
const common = { pool: "forks", testTimeout: 30_000, hookTimeout: 60_000, sequence: { sequencer: SlowFirstSequencer } } as const;
// The suite's files run two at a time even on 2 cores (vitest's default there is one): each spends much of its
// time waiting on PostgreSQL, a receiver or a peer, so two take 11 minutes where one at a time takes 17. A test
// that could fail by chance beside another file is a defect to fix, not a reason to run alone
// (docs/DEVELOPMENT.md, "Tests").
const SUITE_WORKERS = Math.max(2, availableParallelism() - 1);

export default defineConfig({
  test: {
    globalSetup: ["test/setup/postgres.ts", "test/setup/dashboard.ts"],
    // The default report, and a line after each file saying how far the run is (test/setup/progress.ts).
    reporters: ["default", "./test/setup/progress.ts"],
    projects: [
      {
        test: {
          ...common,
          name: "suite",
          maxWorkers: SUITE_WORKERS,
          // A worker process runs its files one after another without reloading the modules they share (the
          // server's code): 118 s of the suite's CPU went to importing them anew for every file (7 minutes on
          // 2 cores instead of 10). A file that changes what another could see (a mock, a spy, a module's cache)
          // undoes it when it ends (docs/DEVELOPMENT.md, "Tests").
          isolate: false,
          include: ["test/**/*.test.ts"],
          exclude: [...ALONE, ...ONCE, ...CHAOS],
        },
      },
      // The browser tests wait on a browser and a server as much as they compute: two at a time, as the suite.
      { test: { ...common, name: "once", include: ONCE, maxWorkers: SUITE_WORKERS } },
      // The chaos tests bound how long recovery takes: one at a time, after the browser tests (vitest runs
      // projects of different worker counts as groups, one after another).
      { test: { ...common, name: "chaos", include: CHAOS, exclude: ALONE, sequence: { ...common.sequence, groupOrder: 1 } } },
      { test: { ...common, name: "alone", include: ALONE, fileParallelism: false, sequence: { ...common.sequence, groupOrder: 2 } } },
    ],
  },
});
