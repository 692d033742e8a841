// Per-webhook pacing (webhooks/pacing.ts): the caps, the failing webhooks' share of the lane, and snoozes that
// queue up behind each other at the webhook's pace instead of all coming back at once.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { WebhookPacing } from "../../server/webhooks/pacing.js";

const pacing = () => new WebhookPacing({ maxInFlight: 2, slowAfterFailures: 3, failingShare: 2, random: () => 0.5 });

describe("webhook pacing", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(1_000_000);
  });
  afterEach(() => vi.useRealTimers());

  it("caps POSTs per webhook, one for a webhook in a failure run, and frees the place on release", () => {
    const p = pacing();
    expect(p.acquire("a", 0)).toEqual({});
    expect(p.acquire("a", 0)).toEqual({});
    expect(p.acquire("a", 0).snoozeUntil).toBeGreaterThan(Date.now());
    expect(p.acquire("b", 0)).toEqual({}); // another webhook is not held up
    p.release("a", 50);
    expect(p.acquire("a", 0)).toEqual({});
    expect(p.acquire("f", 3)).toEqual({});
    expect(p.acquire("f", 3).snoozeUntil).toBeDefined();
  });

  it("lets webhooks in a failure run hold at most their share of the lane, whatever their number", () => {
    const p = pacing();
    expect(p.acquire("f1", 5)).toEqual({});
    expect(p.acquire("f2", 5)).toEqual({});
    expect(p.acquire("f3", 5).snoozeUntil).toBeDefined(); // the share (2) is taken
    expect(p.acquire("healthy", 0)).toEqual({});
    p.release("f1", 5000);
    expect(p.acquire("f3", 5)).toEqual({});
  });

  it("queues the snoozes of one webhook at its pace: a POST hanging for 3 s spaces them 3 s apart", () => {
    const p = pacing();
    p.acquire("dead", 3);
    vi.advanceTimersByTime(3000);
    const first = p.acquire("dead", 3).snoozeUntil!;
    const second = p.acquire("dead", 3).snoozeUntil!;
    expect(first - Date.now()).toBe(3000);
    expect(second - first).toBe(3000);
    // Never further ahead than 30 s, however long the backlog.
    for (let i = 0; i < 20; i++) p.acquire("dead", 3);
    expect(p.acquire("dead", 3).snoozeUntil! - Date.now()).toBe(30_000);
  });

  it("lets a delivery over a quick webhook's cap wait for its next place in memory, up to a second, instead of a snooze", async () => {
    const p = new WebhookPacing({ maxInFlight: 6, slowAfterFailures: 3, failingShare: 2, random: () => 0.5 });
    for (let i = 0; i < 5; i++) p.acquire("quick", 0);
    for (let i = 0; i < 5; i++) p.release("quick", 20); // five quick answers: the full cap
    for (let i = 0; i < 6; i++) expect(p.acquire("quick", 0, true)).toEqual({});
    expect(p.acquire("quick", 0, true)).toEqual({ wait: true });
    expect(p.acquire("quick", 0)).toHaveProperty("snoozeUntil"); // without mayWait: a snooze
    const first = p.waitForPlace("quick");
    const second = p.waitForPlace("quick");
    p.release("quick", 20);
    await expect(first).resolves.toBe(true); // the freed place went to the first waiter...
    expect(p.acquire("quick", 0)).toHaveProperty("snoozeUntil"); // ...so the cap still holds
    vi.advanceTimersByTime(1000);
    await expect(second).resolves.toBe(false); // no place within a second: snooze after all
    // A webhook not shown quick, or in a failure run, never waits: it is snoozed.
    for (let i = 0; i < 5; i++) expect(p.acquire("new", 0, true)).toEqual({});
    expect(p.acquire("new", 0, true)).toHaveProperty("snoozeUntil");
    p.acquire("f", 3, true);
    expect(p.acquire("f", 3, true)).toHaveProperty("snoozeUntil");
  });

  it("gives a webhook the full cap only once it has answered quickly, and takes it back when a POST hangs", () => {
    const p = new WebhookPacing({ maxInFlight: 50, slowAfterFailures: 3, failingShare: 100, random: () => 0.5 });
    const placesNow = (id: string) => {
      let n = 0;
      while (p.acquire(id, 0).snoozeUntil === undefined) n++;
      return n;
    };
    // Unknown: 5 places (a receiver that never answers holds no more than that until its timeouts count).
    expect(placesNow("new")).toBe(5);
    for (let i = 0; i < 5; i++) p.release("new", 20);
    // Five quick answers: the full cap.
    expect(placesNow("new")).toBe(50);
    // Its oldest POST has now hung for over a second: no more places than START_IN_FLIGHT until it answers.
    vi.advanceTimersByTime(1500);
    expect(p.acquire("new", 0).snoozeUntil).toBeDefined();
    for (let i = 0; i < 50; i++) p.release("new", 20);
    expect(placesNow("new")).toBe(50);
  });

  it("says a slow webhook recovered at its first quick answer while its snoozes reach ahead, once per slow spell", () => {
    const p = pacing();
    p.acquire("w", 0);
    p.acquire("w", 0);
    p.release("w", 4000);
    p.release("w", 4000);
    p.acquire("w", 0);
    p.acquire("w", 0);
    for (let i = 0; i < 10; i++) p.acquire("w", 0); // snoozed, 2 s apart at 4 s a POST and 2 places
    expect(p.recovered("w", 3000)).toBe(false); // still slow
    expect(p.recovered("w", 30)).toBe(true);
    expect(p.recovered("w", 30)).toBe(false); // the snoozes were reset: nothing more to recall
    // Afresh at the quick pace: the next snooze is a few milliseconds ahead, not seconds.
    expect(p.acquire("w", 0).snoozeUntil! - Date.now()).toBeLessThan(100);
    expect(p.recovered("unknown", 30)).toBe(false);
  });
});
