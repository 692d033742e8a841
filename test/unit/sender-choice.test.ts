// A pool's sender choice, pure (server/routing/senderChoice.ts; docs/ROUTING.md, "Sender pools"): sticky first
// (waiting at its cap), then the recipient's country, then the least recently used under its cap.
import { describe, expect, it } from "vitest";
import { chooseSender, type Book } from "../../server/routing/index.js";

const US1 = "+14155550101";
const US2 = "+14155550102";
const UK = "+447400123460";
const books = (...senders: string[]) => new Map<string, Book>(senders.map((sender) => [sender, { sender, lastUsed: 0, tat: 0 }]));
const now = 1_000;

describe("chooseSender", () => {
  it("keeps the recipient's last sender when sticky, and waits for it at its cap", () => {
    const b = books(US1, US2);
    const pool = { senders: [US1, US2], sticky: true, rate: 1 };
    expect(chooseSender(pool, "+14155550199", US2, b, now, now)).toEqual({ sender: US2, slot: now });
    expect(chooseSender(pool, "+14155550199", US2, b, now, now)).toEqual({ sender: US2, waitUntil: now + 1 });
    // Not sticky: the other sender, free now.
    expect(chooseSender({ ...pool, sticky: false }, "+14155550199", US2, b, now, now)).toEqual({ sender: US1, slot: now });
  });
  it("prefers a sender of the recipient's country, else the least recently used", () => {
    const b = books(US1, US2, UK);
    const pool = { senders: [US1, US2, UK], sticky: true, rate: null };
    expect(chooseSender(pool, "+447400123461", undefined, b, now, now)?.sender).toBe(UK);
    expect(chooseSender(pool, "+14155550199", undefined, b, now, now)?.sender).toBe(US1);
    expect(chooseSender(pool, "+14155550198", undefined, b, now, now)?.sender).toBe(US2);
    expect(chooseSender(pool, "+33612345678", undefined, b, now + 1, now + 1)?.sender).toBe(US1);
  });
  it("waits for the first sender free when every one is at its cap; none usable: undefined", () => {
    const b = books(US1, US2);
    const pool = { senders: [US1, US2], sticky: false, rate: 2 };
    chooseSender(pool, "+14155550199", undefined, b, now, now);
    chooseSender(pool, "+14155550198", undefined, b, now, now);
    expect(chooseSender(pool, "+14155550197", undefined, b, now, now)).toEqual({ sender: US1, waitUntil: now + 0.5 });
    expect(chooseSender(pool, "+14155550197", undefined, books(), now, now)).toBeUndefined();
  });
});
