// The one batching helper (db/batcher.ts), shared by job completions and receipt finishes.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { batcher } from "../../server/db/batcher.js";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

function recorder() {
  const writes: number[][] = [];
  let release: (() => void) | undefined;
  let hold = false;
  const write = async (items: number[]) => {
    writes.push(items);
    if (hold) await new Promise<void>((r) => (release = r));
  };
  return { writes, write, holdWrites: () => (hold = true), releaseWrite: () => release?.() };
}

describe("the batcher", () => {
  it("waits delayMs for company, then writes everything that arrived as one batch", async () => {
    const r = recorder();
    const b = batcher(r.write, { delayMs: 2 });
    const done = [b.add(1), b.add(2), b.add(3)];
    await vi.advanceTimersByTimeAsync(1);
    expect(r.writes).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.writes).toEqual([[1, 2, 3]]);
    await Promise.all(done);
  });

  it("writes at once when maxBatch items wait", async () => {
    const r = recorder();
    const b = batcher(r.write, { delayMs: 1_000, maxBatch: 2 });
    void b.add(1);
    void b.add(2);
    await vi.advanceTimersByTimeAsync(0);
    expect(r.writes).toEqual([[1, 2]]);
  });

  it("while a write is in flight, collects what arrives and writes it as the next batch", async () => {
    const r = recorder();
    r.holdWrites();
    const b = batcher(r.write); // delayMs 0: the rest of this turn of the event loop
    void b.add(1);
    await vi.advanceTimersByTimeAsync(0);
    expect(r.writes).toEqual([[1]]);
    const later = [b.add(2), b.add(3), b.add(4)];
    await vi.advanceTimersByTimeAsync(100);
    expect(r.writes).toEqual([[1]]);
    r.releaseWrite();
    await vi.advanceTimersByTimeAsync(0);
    expect(r.writes).toEqual([[1], [2, 3, 4]]);
    r.releaseWrite();
    await Promise.all(later);
  });

  it("rejects every item of a batch whose write failed, and goes on with the next", async () => {
    let fail = true;
    const written: number[][] = [];
    const b = batcher<number>(async (items) => {
      written.push(items);
      if (fail) throw new Error("write failed");
    });
    const failed = Promise.allSettled([b.add(1), b.add(2)]);
    await vi.advanceTimersByTimeAsync(0);
    expect((await failed).map((s) => s.status)).toEqual(["rejected", "rejected"]);
    fail = false;
    const ok = b.add(3);
    await vi.advanceTimersByTimeAsync(0);
    await expect(ok).resolves.toBeUndefined();
    expect(written).toEqual([[1, 2], [3]]);
  });

  it("flush() writes what waits without waiting for the delay", async () => {
    const r = recorder();
    const b = batcher(r.write, { delayMs: 60_000 });
    void b.add(1);
    await b.flush();
    expect(r.writes).toEqual([[1]]);
  });
});
