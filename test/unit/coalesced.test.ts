// Batches of a kind that arrive while its batches run wait and run together (jobs/coalesced.ts).
import { describe, expect, it } from "vitest";
import type { JobRow } from "../../server/db/jobs/index.js";
import { coalesced } from "../../server/jobs/coalesced.js";
import type { JobContext } from "../../server/jobs/types.js";
import { createLogger } from "../../server/logger.js";

const job = (id: string) => ({ id, kind: "smpp_receipt", payload: { segmentId: id } }) as unknown as JobRow<"smpp_receipt">;

function context(settled: [number, unknown][]): JobContext {
  return {
    workerId: "w",
    log: createLogger("silent"),
    signal: new AbortController().signal,
    settle: (i, outcome) => settled.push([i, outcome]),
    handoff: () => undefined,
  };
}

describe("coalesced batches", () => {
  it("merges what arrives while a batch runs into the next one, each batch getting its own jobs' outcomes", async () => {
    const calls: string[][] = [];
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const handler = coalesced<"smpp_receipt">(
      {
        async batch(jobs, ctx) {
          calls.push(jobs.map((j) => j.id));
          if (calls.length === 1) await gate;
          // The merged batch settles its last job early; it must reach that job's own batch at its own index.
          if (jobs.length > 1) ctx.settle(jobs.length - 1, undefined);
          return jobs.map((j) => (j.id.startsWith("bad") ? new Error(j.id) : undefined));
        },
      },
      { running: 1 },
    );
    const settledB: [number, unknown][] = [];
    const settledC: [number, unknown][] = [];
    const a = handler.batch([job("a1")], context([]));
    const b = handler.batch([job("b1"), job("bad-b2")], context(settledB));
    const c = handler.batch([job("c1"), job("c2")], context(settledC));
    open();
    expect(await a).toEqual([undefined]);
    const [outB, outC] = await Promise.all([b, c]);
    expect(calls).toEqual([["a1"], ["b1", "bad-b2", "c1", "c2"]]);
    expect(outB.map((o) => o?.message)).toEqual([undefined, "bad-b2"]);
    expect(outC).toEqual([undefined, undefined]);
    expect(settledB).toEqual([]);
    expect(settledC).toEqual([[1, undefined]]);
  });

  it("runs up to `running` batches at once, and a batch that throws fails only its own jobs", async () => {
    let running = 0;
    let most = 0;
    const handler = coalesced<"smpp_receipt">(
      {
        async batch(jobs) {
          running++;
          most = Math.max(most, running);
          await new Promise((r) => setImmediate(r));
          running--;
          if (jobs.some((j) => j.id === "boom")) throw new Error("boom");
          return jobs.map(() => undefined);
        },
      },
      { running: 2 },
    );
    const results = await Promise.all([
      handler.batch([job("x")], context([])),
      handler.batch([job("boom")], context([])),
      handler.batch([job("y")], context([])),
    ]);
    expect(most).toBe(2);
    expect(results[0]).toEqual([undefined]);
    expect(results[1][0]!.message).toBe("boom");
    expect(results[2]).toEqual([undefined]);
  });
});
