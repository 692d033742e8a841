// The runner's timing logic (jobs/producer.ts) with fake timers: when it claims, how much, and when its timer
// wakes it. `claim` stands in for the jobs table: it hands out the jobs a test puts in `due`.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Claim, ClaimedJob } from "../../server/db/jobs/index.js";
import { createLogger } from "../../server/logger.js";
import { Producer } from "../../server/jobs/producer.js";

const job = (id: string): ClaimedJob => ({
  id,
  kind: "k",
  payload: {},
  accountId: null,
  attempt: 1,
  maxAttempts: 1,
  runAt: new Date(),
  createdAt: new Date(),
});

function setup(opts: { concurrency: number; prefetch?: number; safetyPollMs?: number }) {
  const due: ClaimedJob[] = [];
  const claims: number[] = [];
  const running = new Set<string>();
  let nextDueInMs: number | null = null;
  let failNext = false;
  const producer = new Producer({
    concurrency: opts.concurrency,
    prefetch: opts.prefetch ?? opts.concurrency,
    safetyPollMs: opts.safetyPollMs ?? 5_000,
    log: createLogger("silent"),
    running: () => running.size,
    start: (jobs) => {
      for (const j of jobs) running.add(j.id);
    },
    claim: async (limit): Promise<Claim> => {
      claims.push(limit);
      if (failNext) {
        failNext = false;
        throw new Error("database down");
      }
      return { jobs: due.splice(0, limit), nextDueInMs };
    },
  });
  return {
    producer,
    due,
    claims,
    running,
    setNextDue: (ms: number | null) => (nextDueInMs = ms),
    failNextClaim: () => (failNext = true),
    /** A running job ends: its slot frees and the runner tells the producer, as JobRunner does. */
    finish: (id: string) => {
      running.delete(id);
      producer.slotsFreed();
    },
  };
}

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

describe("the producer", () => {
  it("claims `prefetch` jobs at once, starts `concurrency` of them and queues the rest", async () => {
    const t = setup({ concurrency: 2, prefetch: 8 });
    t.due.push(...Array.from({ length: 20 }, (_v, i) => job(`j${i}`)));
    t.producer.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.claims[0]).toBe(8);
    expect(t.running.size).toBe(2);
    expect(t.producer.queued.length).toBe(6);
  });

  it("wantsMore: claims again once the local queue is down to a quarter of its size, not when it runs dry", async () => {
    const t = setup({ concurrency: 2, prefetch: 16 });
    t.due.push(...Array.from({ length: 40 }, (_v, i) => job(`j${i}`)));
    t.producer.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.claims).toEqual([16]);
    // 14 queued; the threshold is max(concurrency, prefetch / 4) = 4: the claim comes when 3 are left.
    const queuedAtEachFinish: number[] = [];
    while (t.claims.length === 1 && queuedAtEachFinish.length < 20) {
      queuedAtEachFinish.push(t.producer.queued.length);
      t.finish([...t.running][0]!);
      await vi.advanceTimersByTimeAsync(0);
    }
    expect(queuedAtEachFinish).toEqual([14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4]);
    expect(t.claims).toEqual([16, 13]); // refills the queue to prefetch
    expect(t.producer.queued.length).toBe(16);
    expect(t.producer.wantsMore()).toBe(false);
  });

  it("without prefetch it claims when a slot is free, up to `concurrency` jobs", async () => {
    const t = setup({ concurrency: 3 });
    t.due.push(...Array.from({ length: 10 }, (_v, i) => job(`j${i}`)));
    t.producer.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.claims).toEqual([3]);
    expect(t.producer.wantsMore()).toBe(false);
    t.finish("j0");
    await vi.advanceTimersByTimeAsync(0);
    expect(t.claims).toEqual([3, 3]); // refills up to prefetch (= concurrency): 1 starts, 2 wait
  });

  it("when the queue is dry, sleeps until the next job is due, then claims it", async () => {
    const t = setup({ concurrency: 2, safetyPollMs: 5_000 });
    t.setNextDue(300);
    t.producer.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.claims.length).toBe(1);
    expect(t.producer.nextWakeAt).toBe(Date.now() + 300);
    t.due.push(job("later"));
    await vi.advanceTimersByTimeAsync(299);
    expect(t.claims.length).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.claims.length).toBe(2);
    expect(t.running.has("later")).toBe(true);
  });

  it("re-arms the timer for a job snoozed to later (the runner passes on its run_at), with no claim when its slot frees", async () => {
    const t = setup({ concurrency: 1 });
    t.due.push(job("a"));
    t.producer.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.running.has("a")).toBe(true);
    expect(t.claims.length).toBe(1); // found 1 of 1: not dry
    // The handler snoozed "a" for 2 s: the runner passes its time on, then frees the slot.
    t.producer.onNotification(String(Date.now() + 2_000));
    t.finish("a");
    await vi.advanceTimersByTimeAsync(0);
    expect(t.claims.length).toBe(2); // the lane was not dry: the freed slot looks, and finds nothing
    expect(t.producer.nextWakeAt).toBe(Date.now() + 2_000);
    t.due.push(job("a"));
    await vi.advanceTimersByTimeAsync(1_999);
    expect(t.claims.length).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.claims.length).toBe(3);
    expect(t.running.has("a")).toBe(true);
  });

  it("after a claim that found the lane dry, freed slots claim nothing until a NOTIFY, the timer or the safety poll", async () => {
    const t = setup({ concurrency: 4, safetyPollMs: 5_000 });
    t.due.push(job("a"), job("b"));
    t.producer.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.claims).toEqual([4]); // dry: 2 of 4
    await vi.advanceTimersByTimeAsync(100);
    t.finish("a");
    t.finish("b");
    await vi.advanceTimersByTimeAsync(100);
    expect(t.claims).toEqual([4]);
    // A job inserted with its NOTIFY is claimed at once.
    t.due.push(job("c"));
    t.producer.onNotification(String(Date.now()));
    await vi.advanceTimersByTimeAsync(0);
    expect(t.claims).toEqual([4, 4]);
    expect(t.running.has("c")).toBe(true);
    // One whose NOTIFY was lost is found by the safety poll (armed by the first claim, 5 s after it).
    t.finish("c");
    t.due.push(job("d"));
    await vi.advanceTimersByTimeAsync(100);
    expect(t.running.has("d")).toBe(false);
    expect(t.producer.nextWakeAt).toBe(1_000_000 + 5_000);
    await vi.advanceTimersByTimeAsync(t.producer.nextWakeAt! - Date.now());
    expect(t.running.has("d")).toBe(true);
  });

  it("jobs handed over already claimed (adopt) start on free slots and count against the queue", async () => {
    const t = setup({ concurrency: 2, prefetch: 4 });
    t.producer.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.claims).toEqual([4]); // dry
    expect(t.producer.reserve(10)).toBe(4); // room for prefetch
    expect(t.producer.reserve(1)).toBe(0); // all promised
    t.producer.adopt([job("x"), job("y"), job("z")], 4); // one place unused: given back
    expect([...t.running].sort()).toEqual(["x", "y"]);
    expect(t.producer.queued.map((j) => j.id)).toEqual(["z"]);
    expect(t.producer.reserve(10)).toBe(1);
    t.producer.release(1);
    expect(t.producer.reserve(10)).toBe(1);
    expect(t.claims).toEqual([4]); // handing over claims nothing
  });

  it("after a failed claim, retries in 1 s", async () => {
    const t = setup({ concurrency: 1 });
    t.failNextClaim();
    t.due.push(job("a"));
    t.producer.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.claims.length).toBe(1);
    expect(t.running.size).toBe(0);
    await vi.advanceTimersByTimeAsync(999);
    expect(t.claims.length).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.claims.length).toBe(2);
    expect(t.running.has("a")).toBe(true);
  });

  it("a NOTIFY for a future job moves the timer earlier without a claim; one for a due job claims at once", async () => {
    const t = setup({ concurrency: 1, safetyPollMs: 5_000 });
    t.producer.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.producer.nextWakeAt).toBe(Date.now() + 5_000);
    t.producer.onNotification(String(Date.now() + 1_000));
    expect(t.claims.length).toBe(1);
    expect(t.producer.nextWakeAt).toBe(Date.now() + 1_000);
    t.producer.onNotification(String(Date.now() + 3_000)); // later than the timer: no change
    expect(t.producer.nextWakeAt).toBe(Date.now() + 1_000);
    t.due.push(job("now"));
    vi.advanceTimersByTime(10); // past the dry-claim gap of the first claim
    t.producer.onNotification(String(Date.now()));
    await vi.advanceTimersByTimeAsync(0);
    expect(t.claims.length).toBe(2);
    expect(t.running.has("now")).toBe(true);
  });

  it("after a claim that found the lane dry, waits 10 ms before the next however many slots free meanwhile", async () => {
    const t = setup({ concurrency: 4 });
    t.due.push(job("a"), job("b"));
    t.producer.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.claims).toEqual([4]); // dry: 2 of 4
    // Jobs become due and slots free one by one: no claim for each.
    t.due.push(job("c"), job("d"), job("e"));
    t.finish("a");
    t.producer.onNotification(String(Date.now()));
    t.finish("b");
    await vi.advanceTimersByTimeAsync(9);
    expect(t.claims).toEqual([4]);
    // Then one claim takes all three.
    await vi.advanceTimersByTimeAsync(1);
    expect(t.claims).toEqual([4, 4]);
    expect([...t.running].sort()).toEqual(["c", "d", "e"]);
  });

  it("stop(): waits for the claim in flight, drops the queue, and neither timer nor NOTIFY claims again", async () => {
    const t = setup({ concurrency: 1, prefetch: 4 });
    t.due.push(...Array.from({ length: 6 }, (_v, i) => job(`j${i}`)));
    t.producer.wake();
    await vi.advanceTimersByTimeAsync(0);
    expect(t.producer.queued.length).toBe(3);
    await t.producer.stop();
    expect(t.producer.queued).toEqual([]);
    expect(t.producer.nextWakeAt).toBeUndefined();
    const claims = t.claims.length;
    t.finish("j0");
    t.producer.onNotification("");
    await vi.advanceTimersByTimeAsync(10_000);
    expect(t.claims.length).toBe(claims);
  });
});
