// A number's time zones from libphonenumber's map (server/domain/numberTimeZones.ts), longest prefix first,
// the map read from disk once however many numbers are looked up.
import * as fs from "node:fs";
import { beforeAll, describe, expect, it, vi } from "vitest";

let timeZonesOfNumber: typeof import("../../server/domain/numberTimeZones.js").timeZonesOfNumber;
// A fresh copy of the module, which reads through the counting fs below: the suite's files share a process
// (vitest.config.ts, isolate: false), and another file may have loaded it, and read the map, already.
beforeAll(async () => {
  vi.resetModules();
  ({ timeZonesOfNumber } = await import("../../server/domain/numberTimeZones.js"));
});

// Counts the reads of the map (the package's own timezones() reads it on every call).
vi.mock("node:fs", async (original) => {
  const real = await original<typeof import("node:fs")>();
  return { ...real, readFileSync: vi.fn(real.readFileSync) };
});

describe("timeZonesOfNumber", () => {
  it("maps an area code to its zone by the longest prefix, a country to all of its zones", () => {
    expect(timeZonesOfNumber("+12125550123")).toEqual(["America/New_York"]);
    expect(timeZonesOfNumber("+14155550123")).toEqual(["America/Los_Angeles"]);
    expect(timeZonesOfNumber("+18085550123")).toEqual(["Pacific/Honolulu"]);
    expect(timeZonesOfNumber("+4930123456")).toEqual(["Europe/Berlin"]);
    expect(timeZonesOfNumber("+447911123456")).toEqual(["Europe/Guernsey", "Europe/Isle_of_Man", "Europe/London"]);
    // +1 with an area code the map does not place: every zone of the plan.
    const nanp = timeZonesOfNumber("+19995550123");
    expect(nanp.length).toBeGreaterThan(30);
    expect(nanp).toEqual(expect.arrayContaining(["America/New_York", "America/Los_Angeles", "Pacific/Guam", "America/Adak"]));
  });

  it("knows nothing of a prefix outside the map", () => {
    expect(timeZonesOfNumber("+999123456")).toEqual([]);
  });

  it("reads the map from disk once, not per lookup", () => {
    for (let i = 0; i < 500; i++) timeZonesOfNumber(`+1212555${String(1000 + i)}`);
    const reads = vi.mocked(fs.readFileSync).mock.calls.filter(([path]) => String(path).endsWith("timezones.bson"));
    expect(reads).toHaveLength(1);
  });
});
