// New ids are time-ordered (UUID version 7), so new rows sit together at the end of every index on them.
import { describe, expect, it } from "vitest";
import { uuidv7 } from "../../server/domain/uuidv7.js";

describe("uuidv7", () => {
  it("is an RFC 9562 version 7 UUID carrying its millisecond", () => {
    const at = Date.UTC(2026, 10, 23, 18, 0, 0, 123);
    const id = uuidv7(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(parseInt(id.replace(/-/g, "").slice(0, 12), 16)).toBe(at);
  });

  it("orders by time: an id of a later millisecond sorts after every id of an earlier one", () => {
    const earlier = Array.from({ length: 1000 }, () => uuidv7(1_800_000_000_000));
    const later = Array.from({ length: 1000 }, () => uuidv7(1_800_000_000_001));
    expect([...later, ...earlier].sort()).toEqual([...[...earlier].sort(), ...[...later].sort()]);
    expect(new Set([...earlier, ...later]).size).toBe(2000);
  });
});
