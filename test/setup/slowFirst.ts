// The order test files start in. On a clean clone (CI, a newcomer) vitest has no record of how long each file
// took and starts the largest first; a file of a minute that happens to start last then runs alone at the end
// while the other worker idles (the fresh-clone test, 2.6 minutes of the browser project's 6.4, ran last). The
// files below, the longest of their projects, start first, longest first; the rest keep vitest's order (with a
// record: longest first; without: largest first).
import { BaseSequencer, type TestSpecification } from "vitest/node";

export const SLOW_FIRST = [
  "test/newcomer/fresh-clone.test.ts",
  "test/e2e/dashboard-accessibility.test.ts",
  "test/chaos/sigkill-workers.test.ts",
  "test/e2e/start.test.ts",
  "test/e2e/dashboard.test.ts",
  "test/fuzz/request-bodies.test.ts",
  "test/engine/workers.test.ts",
  "test/smpp/smpp-provider.test.ts",
  "test/engine/throughput.test.ts",
  "test/api/exports.test.ts",
  "test/smpp/link-recovery.test.ts",
  "test/e2e/keys-cli.test.ts",
];

/** Where a file starts: its place in SLOW_FIRST, or after all of them. */
export function startRank(moduleId: string): number {
  const i = SLOW_FIRST.findIndex((f) => moduleId.endsWith(f));
  return i < 0 ? SLOW_FIRST.length : i;
}

export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // Array.prototype.sort is stable: within a rank, vitest's order stays.
    return sorted.sort((a, b) => startRank(a.moduleId) - startRank(b.moduleId));
  }
}
