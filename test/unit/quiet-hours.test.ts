// Quiet hours as pure functions over real zones (server/domain/quietHours.ts): windows crossing midnight or
// not, their ends on DST days (gap and overlap, also in zones whose clocks change at midnight: Santiago and
// Havana in 2026), the strictest of several zones, and the fallback to the account's zone when zones share
// no open hour. Expected instants are written out in UTC, never computed with the code under test.
import { Settings } from "luxon";
import { describe, expect, it } from "vitest";
import { timeZonesOfNumber } from "../../server/domain/numberTimeZones.js";
import { firstOpenInstant, isInQuietHours, quietHoursDecision, quietHoursEnd } from "../../server/domain/quietHours.js";

const night = { start: "21:00", end: "08:00" };
const lunch = { start: "12:00", end: "14:00" };
const at = (iso: string) => new Date(iso);
const endOf = (iso: string, window: { start: string; end: string }, zone: string) => quietHoursEnd(at(iso), window, zone).toISOString();

describe("isInQuietHours", () => {
  it("a window crossing midnight holds from its start to its end, local time, at minute resolution", () => {
    const la = "America/Los_Angeles"; // PDT, UTC-7, in June
    expect(isInQuietHours(at("2026-06-16T03:59:59Z"), night, la)).toBe(false); // 20:59:59
    expect(isInQuietHours(at("2026-06-16T04:00:00Z"), night, la)).toBe(true); // 21:00
    expect(isInQuietHours(at("2026-06-16T07:00:00Z"), night, la)).toBe(true); // 00:00
    expect(isInQuietHours(at("2026-06-16T14:59:59Z"), night, la)).toBe(true); // 07:59:59
    expect(isInQuietHours(at("2026-06-16T15:00:00Z"), night, la)).toBe(false); // 08:00
    // The same instant is 06:00 in Berlin: local time of the zone asked about, not UTC.
    expect(isInQuietHours(at("2026-06-16T04:00:00Z"), night, "Europe/Berlin")).toBe(true);
    expect(isInQuietHours(at("2026-06-16T04:00:00Z"), night, "UTC")).toBe(true);
    expect(isInQuietHours(at("2026-06-16T10:00:00Z"), night, "UTC")).toBe(false);
  });

  it("a window not crossing midnight holds only between its start and end", () => {
    const berlin = "Europe/Berlin"; // CEST, UTC+2, in June
    expect(isInQuietHours(at("2026-06-16T09:59:00Z"), lunch, berlin)).toBe(false); // 11:59
    expect(isInQuietHours(at("2026-06-16T10:00:00Z"), lunch, berlin)).toBe(true); // 12:00
    expect(isInQuietHours(at("2026-06-16T11:59:00Z"), lunch, berlin)).toBe(true); // 13:59
    expect(isInQuietHours(at("2026-06-16T12:00:00Z"), lunch, berlin)).toBe(false); // 14:00
    expect(isInQuietHours(at("2026-06-16T22:30:00Z"), lunch, berlin)).toBe(false); // 00:30
  });
});

describe("quietHoursEnd", () => {
  it("ends at the end's local time on the next day for a window entered before midnight, the same day after it", () => {
    expect(endOf("2026-06-16T04:30:00Z", night, "America/Los_Angeles")).toBe("2026-06-16T15:00:00.000Z"); // 21:30 → 08:00 PDT
    expect(endOf("2026-06-16T09:30:00Z", night, "America/Los_Angeles")).toBe("2026-06-16T15:00:00.000Z"); // 02:30 → 08:00 PDT
    expect(endOf("2026-06-16T10:30:00Z", lunch, "Europe/Berlin")).toBe("2026-06-16T12:00:00.000Z"); // 12:30 → 14:00 CEST
  });

  it("across a DST change the end is wall-clock time on that day, not the offset the window started with", () => {
    // Los Angeles falls back on 2026-11-01 (PDT → PST): 21:30 PDT on Oct 31 is held to 08:00 PST, 16:00Z (not 15:00Z).
    expect(endOf("2026-11-01T04:30:00Z", night, "America/Los_Angeles")).toBe("2026-11-01T16:00:00.000Z");
    // And springs forward on 2026-03-08 (PST → PDT): 21:30 PST on Mar 7 is held to 08:00 PDT, 15:00Z (not 16:00Z).
    expect(endOf("2026-03-08T05:30:00Z", night, "America/Los_Angeles")).toBe("2026-03-08T15:00:00.000Z");
  });

  it("an end that does not exist (spring-forward gap) moves forward by the gap", () => {
    // Los Angeles 2026-03-08: 02:00 PST → 03:00 PDT, so 02:30 is 03:30 PDT.
    expect(endOf("2026-03-08T09:45:00Z", { start: "01:00", end: "02:30" }, "America/Los_Angeles")).toBe("2026-03-08T10:30:00.000Z");
    // Berlin 2026-03-29: 02:00 CET → 03:00 CEST, so 02:30 is 03:30 CEST.
    expect(endOf("2026-03-28T22:00:00Z", { start: "22:00", end: "02:30" }, "Europe/Berlin")).toBe("2026-03-29T01:30:00.000Z");
    // Santiago 2026-09-06 changes at midnight: 00:00 -04 → 01:00 -03; an end at 00:30 is 01:30 -03, one at 00:00 is 01:00.
    expect(endOf("2026-09-06T03:00:00Z", { start: "22:00", end: "00:30" }, "America/Santiago")).toBe("2026-09-06T04:30:00.000Z");
    expect(endOf("2026-09-06T03:00:00Z", { start: "20:00", end: "00:00" }, "America/Santiago")).toBe("2026-09-06T04:00:00.000Z");
    // Havana 2026-03-08 changes at midnight too: 00:00 -05 → 01:00 -04; 00:15 is 01:15 -04.
    expect(endOf("2026-03-08T03:00:00Z", { start: "21:00", end: "00:15" }, "America/Havana")).toBe("2026-03-08T05:15:00.000Z");
  });

  it("an end that happens twice (fall-back overlap) is its first occurrence still ahead", () => {
    const la = "America/Los_Angeles"; // 2026-11-01: 02:00 PDT → 01:00 PST, 01:00–01:59 twice
    const window = { start: "00:30", end: "01:30" };
    // luxon's fromObject alone resolves an ambiguous time by the offset in force when the code runs: the
    // answer must not depend on it, so both seasons are tried.
    try {
      for (const runningOn of ["2026-01-15T12:00:00Z", "2026-07-15T12:00:00Z"]) {
        Settings.now = () => Date.parse(runningOn);
        // At 01:00 PDT: the first 01:30, PDT (08:30Z).
        expect(endOf("2026-11-01T08:00:00Z", window, la), runningOn).toBe("2026-11-01T08:30:00.000Z");
        // At 01:10 PST the wall clock is inside the window again, and its first 01:30 is past: the second, PST.
        expect(endOf("2026-11-01T09:10:00Z", window, la), runningOn).toBe("2026-11-01T09:30:00.000Z");
      }
    } finally {
      Settings.now = () => Date.now();
    }
    // Berlin 2026-10-25: 03:00 CEST → 02:00 CET; 02:30 comes first in CEST (00:30Z).
    expect(endOf("2026-10-24T21:00:00Z", { start: "22:00", end: "02:30" }, "Europe/Berlin")).toBe("2026-10-25T00:30:00.000Z");
    // Havana 2026-11-01 changes at 01:00 -04 → 00:00 -05: 00:30 comes first in -04 (04:30Z).
    expect(endOf("2026-11-01T03:00:00Z", { start: "22:00", end: "00:30" }, "America/Havana")).toBe("2026-11-01T04:30:00.000Z");
    // Santiago 2026-04-05 changes at midnight, 00:00 -03 → 23:00 -04 on Apr 4: a window ending the next morning
    // is unaffected, 07:00 -04.
    expect(endOf("2026-04-05T02:30:00Z", { start: "23:15", end: "07:00" }, "America/Santiago")).toBe("2026-04-05T11:00:00.000Z");
  });
});

describe("firstOpenInstant and quietHoursDecision", () => {
  it("is now when no zone holds it; otherwise the first instant open in EVERY zone, the strictest deciding", () => {
    const zones = ["America/New_York", "America/Los_Angeles"];
    expect(firstOpenInstant(at("2026-06-16T00:30:00Z"), night, zones)).toEqual(at("2026-06-16T00:30:00Z")); // 20:30 EDT, 17:30 PDT
    // 08:00 EDT, 05:00 PDT: Los Angeles holds until 08:00 PDT.
    expect(firstOpenInstant(at("2026-06-16T12:00:00Z"), night, zones)).toEqual(at("2026-06-16T15:00:00Z"));
    // 21:30 EDT, 18:30 PDT: New York holds until 08:00 EDT (12:00Z), when it is 05:00 in Los Angeles: 08:00 PDT.
    expect(firstOpenInstant(at("2026-06-16T01:30:00Z"), night, zones)).toEqual(at("2026-06-16T15:00:00Z"));
    expect(quietHoursDecision(at("2026-06-16T01:30:00Z"), night, zones, "UTC")).toEqual({
      heldUntil: at("2026-06-16T15:00:00Z"),
      fellBack: false,
    });
    expect(quietHoursDecision(at("2026-06-16T00:30:00Z"), night, zones, "UTC")).toEqual({ heldUntil: null, fellBack: false });
  });

  it("a +1 number of unknown area code is in every NANP zone, Pago Pago to Guam: held until all are open at once", () => {
    const everyNanpZone = timeZonesOfNumber("+19995550123");
    expect(everyNanpZone).toEqual(expect.arrayContaining(["Pacific/Guam", "Pacific/Pago_Pago", "America/Adak", "America/St_Johns"]));
    // 21:00–08:00 leaves 13 open hours; on the clock's circle these zones span 11.5 (UTC-11 … UTC-2:30 and
    // UTC+10): 22:00Z–23:30Z in June is open in all of them (08:00 in Guam, 19:30 in St. John's).
    expect(quietHoursDecision(at("2026-06-16T01:30:00Z"), night, everyNanpZone, "America/Chicago")).toEqual({
      heldUntil: at("2026-06-16T22:00:00Z"),
      fellBack: false,
    });
  });

  it("falls back to the account's zone alone when the zones share no open instant within the horizon", () => {
    const everyNanpZone = timeZonesOfNumber("+19995550123");
    const long = { start: "19:00", end: "09:00" }; // 10 open hours: fewer than the 11.5 the zones span
    expect(firstOpenInstant(at("2026-06-16T01:30:00Z"), long, everyNanpZone)).toBeNull();
    // 20:30 CDT in Chicago: held until 09:00 CDT.
    expect(quietHoursDecision(at("2026-06-16T01:30:00Z"), long, everyNanpZone, "America/Chicago")).toEqual({
      heldUntil: at("2026-06-16T14:00:00Z"),
      fellBack: true,
    });
    // 13:00 CDT: open in Chicago, so not held, although it is night in Guam.
    expect(quietHoursDecision(at("2026-06-16T18:00:00Z"), long, everyNanpZone, "America/Chicago")).toEqual({
      heldUntil: null,
      fellBack: true,
    });
  });
});
