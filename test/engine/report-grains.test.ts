// A report reads whole UTC hours from the hourly counts when they are local hours in its zone, and quarter
// hours elsewhere (docs/REPORTS.md, "How it is counted"). Random quarter-hour counts over nine days that hold a
// whole-hour DST change (London, 29 March 2026) and a half-hour one (Lord Howe, 5 April 2026), moved by the
// chore in two rounds (so the hourly counts are both added and updated), then random windows cut anywhere in
// zones of whole, half and three-quarter hour offsets → every day and hour equals the sum of its quarter
// hours, keyed by Node's own zone data.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compactMessageCounts } from "../../server/db/messageCounts.js";
import { useTestServer } from "../helpers/server.js";

const server = useTestServer();

const BASE = Date.parse("2026-03-28T00:00:00Z");
const QUARTERS = 9 * 24 * 4;
const MINUTE = 60_000;
const ZONES = ["UTC", "Europe/London", "Asia/Kolkata", "Asia/Kathmandu", "Australia/Lord_Howe", "America/St_Johns"] as const;

/** The day or hour an instant falls in, in `tz`, as a report keys it. */
function keyOf(at: number, tz: string, grain: "day" | "hour"): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      timeZoneName: "longOffset",
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const day = `${parts.year}-${parts.month}-${parts.day}`;
  if (grain === "day") return day;
  const offset = parts.timeZoneName === "GMT" ? "+00:00" : parts.timeZoneName!.slice(3);
  return `${day}T${parts.hour}:00:00${offset}`;
}

describe("report grains", () => {
  it("hourly and quarter-hour counts make the same days and hours in any zone, for windows cut anywhere", async () => {
    const counts = fc.array(fc.record({ quarter: fc.nat(QUARTERS - 1), messages: fc.integer({ min: 1, max: 5 }) }), {
      minLength: 1,
      maxLength: 300,
    });
    const window = fc.record({ from: fc.nat(QUARTERS * 15), minutes: fc.integer({ min: 1, max: QUARTERS * 15 }) });
    await fc.assert(
      fc.asyncProperty(counts, fc.array(window, { minLength: 1, maxLength: 4 }), fc.constantFrom(...ZONES), async (rows, windows, tz) => {
        const s = server();
        const a = await s.account();
        const delta = (r: (typeof rows)[number]) => ({
          account_id: a.accountId,
          bucket: new Date(BASE + r.quarter * 15 * MINUTE),
          event: "accepted",
          country: "US",
          category: "transactional",
          campaign_id: "00000000-0000-0000-0000-000000000000",
          connector_id: "00000000-0000-0000-0000-000000000000",
          error_code: "",
          ttd: -1,
          messages: r.messages,
          segments: r.messages,
        });
        const half = Math.ceil(rows.length / 2);
        for (const round of [rows.slice(0, half), rows.slice(half)]) {
          if (round.length > 0) await s.db("message_count_deltas").insert(round.map(delta));
          await compactMessageCounts(s.db);
        }
        // The triggers kept one hourly row per hour, holding its quarter hours' sum.
        const hourly = await s.db("message_counts_hourly").where({ account_id: a.accountId }).select("bucket", "messages");
        const byHour: Record<string, number> = {};
        for (const r of rows) {
          const hour = new Date(Math.floor((BASE + r.quarter * 15 * MINUTE) / 3_600_000) * 3_600_000).toISOString();
          byHour[hour] = (byHour[hour] ?? 0) + r.messages;
        }
        expect(Object.fromEntries(hourly.map((h) => [(h.bucket as Date).toISOString(), Number(h.messages)]))).toEqual(byHour);
        for (const w of windows) {
          const since = BASE + w.from * MINUTE;
          const until = since + w.minutes * MINUTE;
          // The window as the report widens it, to whole quarter hours.
          const [from, to] = [Math.floor(since / (15 * MINUTE)) * 15 * MINUTE, Math.ceil(until / (15 * MINUTE)) * 15 * MINUTE];
          for (const grain of ["day", "hour"] as const) {
            const expected: Record<string, number> = {};
            for (const r of rows) {
              const at = BASE + r.quarter * 15 * MINUTE;
              if (at >= from && at < to) expected[keyOf(at, tz, grain)] = (expected[keyOf(at, tz, grain)] ?? 0) + r.messages;
            }
            const q = `since=${new Date(since).toISOString()}&until=${new Date(until).toISOString()}&groupBy=${grain}&tz=${tz}`;
            const res = await a.request("GET", `/api/v1/reports/messages?${q}`);
            expect(res.status).toBe(200);
            const body = (await res.json()) as { rows: Record<string, unknown>[] };
            expect(Object.fromEntries(body.rows.map((r) => [r[grain], r.accepted]))).toEqual(expected);
          }
        }
      }),
      { numRuns: 40 },
    );
  });
});
