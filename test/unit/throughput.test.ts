// The throughput caps' GCRA decision (server/domain/throughput.ts), on numbers: slots at the rate, order held per
// key, and no second in which a bucket admits more than its rate plus one message; turns for the messages refused.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  admitInOrder,
  capsAfterRouting,
  capsBeforeClaim,
  handTurns,
  messagesThatMayFit,
  type Bucket,
  type Candidate,
} from "../../server/domain/throughput.js";

const bucketsOf = (entries: [string, Bucket][]) => new Map(entries);
/** Slots to the microsecond, as PostgreSQL keeps them (the sums of intervals are not exact in binary). */
const rounded = (slots: Map<string, number>) => [...slots].map(([id, at]) => [id, Number(at.toFixed(6))]);

describe("admitInOrder", () => {
  it("hands out slots at the rate, a message of n segments taking n intervals, up to the horizon", () => {
    const buckets = bucketsOf([["a", { rate: 10, tat: 0 }]]);
    const candidates: Candidate[] = [
      { id: "1", segments: 1, keys: ["a"] },
      { id: "2", segments: 3, keys: ["a"] },
      { id: "3", segments: 1, keys: ["a"] },
      { id: "4", segments: 1, keys: ["a"] },
    ];
    const { slots, changed } = admitInOrder(candidates, buckets, 100, 100.4);
    expect(rounded(slots)).toEqual([
      ["1", 100],
      ["2", 100.1],
      ["3", 100.4],
    ]);
    expect(buckets.get("a")!.tat).toBeCloseTo(100.5);
    expect([...changed]).toEqual(["a"]);
  });

  it("with the horizon at now, admits only while the bucket is paid off", () => {
    const buckets = bucketsOf([["a", { rate: 2, tat: 99 }]]);
    const { slots } = admitInOrder(
      [
        { id: "1", segments: 1, keys: ["a"] },
        { id: "2", segments: 1, keys: ["a"] },
      ],
      buckets,
      100,
      100,
    );
    expect([...slots.keys()]).toEqual(["1"]);
    expect(buckets.get("a")!.tat).toBe(100.5);
  });

  it("keeps order per key: a refused message stops the later ones on its keys, not the others", () => {
    const buckets = bucketsOf([
      ["a", { rate: 1, tat: 100 }],
      ["b", { rate: 1, tat: 0 }],
    ]);
    const { slots } = admitInOrder(
      [
        { id: "a1", segments: 1, keys: ["a"] },
        { id: "b1", segments: 1, keys: ["b"] },
        { id: "a2", segments: 1, keys: ["a"] },
      ],
      buckets,
      100,
      100,
    );
    expect([...slots.keys()]).toEqual(["a1", "b1"]);
  });

  it("charges every key of a message at the latest of their slots, and a full link stops every account", () => {
    const buckets = bucketsOf([
      ["a", { rate: 10, tat: 0 }],
      ["b", { rate: 10, tat: 0 }],
      ["link", { rate: 5, tat: 100.1 }],
    ]);
    const { slots } = admitInOrder(
      [
        { id: "a1", segments: 1, keys: ["a", "link"] },
        { id: "b1", segments: 1, keys: ["b", "link"] },
        { id: "a2", segments: 1, keys: ["a", "link"] },
      ],
      buckets,
      100,
      100.3,
    );
    expect(rounded(slots)).toEqual([
      ["a1", 100.1],
      ["b1", 100.3],
    ]);
    expect(buckets.get("a")!.tat).toBeCloseTo(100.2);
    expect(buckets.get("link")!.tat).toBeCloseTo(100.5);
  });

  it("a message behind the queue, or whose job is not settled, closes its keys; one expiring before its slot is skipped", () => {
    const buckets = bucketsOf([
      ["a", { rate: 10, tat: 0 }],
      ["b", { rate: 10, tat: 0 }],
      ["c", { rate: 1, tat: 0 }],
    ]);
    const { slots } = admitInOrder(
      [
        { id: "a1", segments: 1, keys: ["a"], behind: ["a"] },
        { id: "a2", segments: 1, keys: ["a"] },
        { id: "b1", segments: 1, keys: ["b"], unsettled: true },
        { id: "b2", segments: 1, keys: ["b"] },
        { id: "c1", segments: 1, keys: ["c"] },
        { id: "c2", segments: 1, keys: ["c"], validUntil: 100.5 },
        { id: "c3", segments: 1, keys: ["c"] },
        { id: "free", segments: 1, keys: [] },
      ],
      buckets,
      100,
      102,
    );
    expect(rounded(slots)).toEqual([
      ["c1", 100],
      ["c3", 101],
      ["free", 100],
    ]);
  });

  it("never admits more than the rate in any one second plus the message that starts last", () => {
    const candidate = fc.record({ segments: fc.integer({ min: 1, max: 5 }), gap: fc.double({ min: 0, max: 0.3, noNaN: true }) });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.array(candidate, { minLength: 1, maxLength: 200 }), (rate, arrivals) => {
        // Messages arriving one by one at increasing times, each either sent now or refused (the send path).
        const buckets = bucketsOf([["a", { rate, tat: 0 }]]);
        let now = 1000;
        const sent: { at: number; segments: number }[] = [];
        arrivals.forEach(({ segments, gap }, i) => {
          now += gap;
          const { slots } = admitInOrder([{ id: String(i), segments, keys: ["a"] }], buckets, now, now);
          if (slots.has(String(i))) sent.push({ at: slots.get(String(i))!, segments });
        });
        for (const first of sent) {
          const inSecond = sent.filter((s) => s.at >= first.at && s.at < first.at + 1);
          const total = inSecond.reduce((n, s) => n + s.segments, 0);
          expect(total).toBeLessThanOrEqual(rate + inSecond.at(-1)!.segments);
        }
      }),
    );
  });
});

describe("messagesThatMayFit", () => {
  it("bounds the messages worth reading for a bucket before the horizon", () => {
    expect(messagesThatMayFit({ rate: 10, tat: 0 }, 100, 100.2)).toBe(3);
    expect(messagesThatMayFit({ rate: 10, tat: 100.15 }, 100, 100.2)).toBe(1);
    expect(messagesThatMayFit({ rate: 10, tat: 100.3 }, 100, 100.2)).toBe(0);
  });
});

describe("capsBeforeClaim", () => {
  it("lists the account's cap and the link's, each with its rate, the queue it keeps and its words, and nothing when neither is set", () => {
    const account = { key: "account:a1", rate: 5, scope: "account", words: "the account's 5 segments/s" };
    const link = { key: "link", rate: 200, scope: "link", words: "the link's 200 segments/s" };
    expect(capsBeforeClaim({ accountId: "a1", maxSegmentsPerSecond: 5 }, 200)).toEqual([account, link]);
    expect(capsBeforeClaim({ accountId: "a1", maxSegmentsPerSecond: null }, 200)).toEqual([link]);
    expect(capsBeforeClaim({ accountId: "a1", maxSegmentsPerSecond: 5 }, null)).toEqual([account]);
    expect(capsBeforeClaim({ accountId: "a1", maxSegmentsPerSecond: null }, null)).toEqual([]);
  });
});

describe("capsAfterRouting", () => {
  it("is the connector's cap with its bucket, and nothing for a connector without one", () => {
    expect(capsAfterRouting({ connectorId: "c1", maxSegmentsPerSecond: 30 })).toEqual([{ key: "connector:c1", rate: 30 }]);
    expect(capsAfterRouting({ connectorId: "c1", maxSegmentsPerSecond: null })).toEqual([]);
  });
});

describe("handTurns", () => {
  it("gives waiting messages turns one after another at the rate, from the latest of the promised time, the tat and now", () => {
    const waiting = [
      { id: "a", segments: 1 },
      { id: "b", segments: 2 },
      { id: "c", segments: 1 },
    ];
    // Turns promised up to 101: the first turn is there, each taking its segments' share of the rate.
    const turns = handTurns({ rate: 10, tat: 100.5 }, 101, waiting, 100, 0.05);
    expect(rounded(turns.wakeAt)).toEqual([
      ["a", 100.95],
      ["b", 101.05],
      ["c", 101.25],
    ]);
    expect(Number(turns.promised.toFixed(6))).toBe(101.4);
    // Nothing promised yet (or promised in the past): from the tat, or from now when the tat is past too.
    expect(rounded(handTurns({ rate: 10, tat: 100.5 }, undefined, waiting.slice(0, 1), 100, 0).wakeAt)).toEqual([["a", 100.5]]);
    expect(rounded(handTurns({ rate: 10, tat: 99 }, 98, waiting.slice(0, 1), 100, 0).wakeAt)).toEqual([["a", 100]]);
    // No one waiting: nothing promised beyond where turns start.
    expect(handTurns({ rate: 10, tat: 100.5 }, undefined, [], 100, 0)).toEqual({ wakeAt: new Map(), promised: 100.5 });
  });
});
