// How far a test run is, for a person watching `npm test` or a CI log: after each file, one line
// "[12/133 files, 2 failed, 3m 41s] test/api/messages.test.ts (3.2 s)", beside vitest's own report. Vitest's default
// reporter says which files passed, not how many are left; on a 2-core machine the suite takes minutes.
import type { Reporter, TestModule, TestSpecification } from "vitest/node";

/** The progress line for a finished file. */
export function progressLine(p: { done: number; total: number; failed: number; elapsedMs: number; file: string; fileMs: number }): string {
  const minutes = Math.floor(p.elapsedMs / 60_000);
  const seconds = Math.floor((p.elapsedMs % 60_000) / 1000);
  const failed = p.failed > 0 ? `, ${p.failed} failed` : "";
  return `[${p.done}/${p.total} files${failed}, ${minutes}m ${String(seconds).padStart(2, "0")}s] ${p.file} (${(p.fileMs / 1000).toFixed(1)} s)`;
}

export default class ProgressReporter implements Reporter {
  private total = 0;
  private done = 0;
  private failed = 0;
  private started = Date.now();

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.total = specifications.length;
    this.done = 0;
    this.failed = 0;
    this.started = Date.now();
  }

  onTestModuleEnd(module: TestModule): void {
    this.done++;
    if (module.state() === "failed") this.failed++;
    const line = progressLine({
      done: this.done,
      total: this.total,
      failed: this.failed,
      elapsedMs: Date.now() - this.started,
      file: module.relativeModuleId,
      fileMs: module.diagnostic().duration,
    });
    process.stdout.write(`${line}\n`);
  }
}
