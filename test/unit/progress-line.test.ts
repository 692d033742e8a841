// The line `npm test` prints after each file (test/setup/progress.ts): how many files are done of how many,
// how many failed, the time so far and the file's own.
import { describe, expect, it } from "vitest";
import { progressLine } from "../setup/progress.js";

describe("the test run's progress line", () => {
  it("says the files done of all, the failures, the time so far and the file's own time", () => {
    expect(progressLine({ done: 12, total: 133, failed: 0, elapsedMs: 221_400, file: "test/api/x.test.ts", fileMs: 3_240 })).toBe(
      "[12/133 files, 3m 41s] test/api/x.test.ts (3.2 s)",
    );
    expect(progressLine({ done: 133, total: 133, failed: 2, elapsedMs: 59_999, file: "test/unit/y.test.ts", fileMs: 12 })).toBe(
      "[133/133 files, 2 failed, 0m 59s] test/unit/y.test.ts (0.0 s)",
    );
  });
});
