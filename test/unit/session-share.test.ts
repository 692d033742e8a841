// The deal of a connector's sessions over the live workers (domain/sessionShare.ts): every session held by
// exactly one worker, as even as can be, the same whoever computes it, and a worker joining moves little.
import { describe, expect, it } from "vitest";
import { sessionsHeldBy } from "../../server/domain/sessionShare.js";

const workers = (n: number) => Array.from({ length: n }, (_, i) => `host-${i}:${1000 + i}`);
const deal = (ws: string[], connector: string, sessions: number) => ws.map((w) => sessionsHeldBy(w, ws, connector, sessions));

describe("sessionsHeldBy", () => {
  it("deals every session once, evenly, for any count of workers and sessions", () => {
    for (let n = 1; n <= 6; n++)
      for (let sessions = 1; sessions <= 8; sessions++) {
        const held = deal(workers(n), `connector-${n}-${sessions}`, sessions);
        expect(held.reduce((a, b) => a + b, 0)).toBe(sessions);
        expect(Math.max(...held) - Math.min(...held)).toBeLessThanOrEqual(1);
      }
  });

  it("is the same whatever order the workers are listed in, and counts the caller when it is not listed", () => {
    const ws = workers(4);
    expect(deal([...ws].reverse(), "c", 3).reverse()).toEqual(deal(ws, "c", 3));
    expect(sessionsHeldBy(ws[0]!, ws.slice(1), "c", 3)).toBe(sessionsHeldBy(ws[0]!, ws, "c", 3));
  });

  it("spreads one-session connectors over the workers rather than piling them on one", () => {
    const ws = workers(3);
    const holders = Array.from({ length: 30 }, (_, i) => deal(ws, `connector-${i}`, 1).indexOf(1));
    for (let w = 0; w < 3; w++) expect(holders.filter((h) => h === w).length).toBeGreaterThan(3);
  });

  it("a worker joining takes at most one session of a connector from the others when sessions ≤ workers", () => {
    const before = workers(3);
    const after = [...before, "host-new:1"];
    for (let i = 0; i < 20; i++) {
      const was = deal(before, `connector-${i}`, 3);
      const now = deal(after, `connector-${i}`, 3).slice(0, 3);
      expect(was.filter((n, w) => n > now[w]!).length).toBeLessThanOrEqual(1);
    }
  });
});
