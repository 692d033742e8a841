// The SMPP submit rate's arithmetic (server/providers/smpp/submitRate.ts): halved once per throttle burst down
// to the floor, raised by a tenth of the maximum per run of ceil(rate) successes, back up to the maximum.
import { describe, expect, it } from "vitest";
import { SubmitRate } from "../../server/providers/smpp/submitRate.js";

/** `n` successes of submits written now. */
const succeed = (rate: SubmitRate, n: number) => {
  for (let i = 0; i < n; i++) rate.succeeded(rate.epoch);
};

describe("SubmitRate", () => {
  it("halves once per burst: throttles of submits written before the decrease change nothing", () => {
    const rate = new SubmitRate(100);
    const burst = rate.epoch; // three submits written together, all throttled
    expect(rate.throttled(burst)).toBe(true);
    expect(rate.throttled(burst)).toBe(false);
    expect(rate.throttled(burst)).toBe(false);
    expect(rate.current).toBe(50);
    expect(rate.intervalMs).toBe(20);
    expect(rate.throttled(rate.epoch)).toBe(true); // one written after the decrease
    expect(rate.current).toBe(25);
  });

  it("never goes below one a second, and a throttle at the floor still starts a new epoch", () => {
    const rate = new SubmitRate(50);
    for (let i = 0; i < 20; i++) rate.throttled(rate.epoch);
    expect(rate.current).toBe(1);
    const epoch = rate.epoch;
    expect(rate.throttled(epoch)).toBe(true);
    expect(rate.epoch).toBe(epoch + 1);
    expect(rate.current).toBe(1);
    expect(new SubmitRate(1).current).toBe(1);
  });

  it("climbs back by a tenth of the maximum per ceil(rate) successes, to the maximum and no further", () => {
    const rate = new SubmitRate(50);
    for (let i = 0; i < 10; i++) rate.throttled(rate.epoch);
    expect(rate.current).toBe(1);
    succeed(rate, 1);
    expect(rate.current).toBe(6);
    succeed(rate, 5);
    expect(rate.current).toBe(6); // a run is ceil(6) = 6
    succeed(rate, 1);
    expect(rate.current).toBe(11);
    const runs: number[] = [];
    while (rate.current < 50) {
      let n = 0;
      const before = rate.current;
      while (rate.current === before) {
        succeed(rate, 1);
        n++;
      }
      runs.push(n);
    }
    expect(runs).toEqual([11, 16, 21, 26, 31, 36, 41, 46]);
    expect(rate.current).toBe(50);
    succeed(rate, 1000);
    expect(rate.current).toBe(50);
  });

  it("successes of submits written before the last decrease do not count, and a throttle restarts the run", () => {
    const rate = new SubmitRate(20);
    const old = rate.epoch;
    rate.throttled(old);
    expect(rate.current).toBe(10);
    for (let i = 0; i < 50; i++) rate.succeeded(old);
    expect(rate.current).toBe(10);
    succeed(rate, 9);
    rate.throttled(rate.epoch);
    expect(rate.current).toBe(5);
    succeed(rate, 4);
    expect(rate.current).toBe(5);
    succeed(rate, 1);
    expect(rate.current).toBe(7);
  });
});
