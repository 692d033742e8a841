// Message reports (docs/REPORTS.md): what a report may group by, the time-to-delivered buckets its percentiles
// come from, and how counted events become a report's rows.
import type { components } from "../../generated/api.js";
import { TTD_BOUNDS_SECONDS } from "../domain/countedEvents.js";

/** What a report groups by: one or two of these. */
export const REPORT_KEYS = ["hour", "day", "status", "country", "category", "campaign", "connector", "errorCode", "account"] as const;
export type ReportKey = (typeof REPORT_KEYS)[number];

/** The events a message is counted for (message_counts.event), in the order a report's columns show them. */
export const REPORT_EVENTS = ["accepted", "received", "sent", "delivered", "failed", "undelivered", "cancelled"] as const;
export type ReportEvent = (typeof REPORT_EVENTS)[number];

/**
 * The p-th percentile (0 < p < 1) of counts per bucket: the upper bound of the bucket the p-th delivery falls
 * in (a day for the last bucket, which has none: "more than a day"), or null without deliveries.
 */
export function percentileOf(counts: readonly number[], p: number): number | null {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = Math.ceil(p * total);
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i] ?? 0;
    if (seen >= rank) return TTD_BOUNDS_SECONDS[Math.min(i, TTD_BOUNDS_SECONDS.length - 1)]!;
  }
  return TTD_BOUNDS_SECONDS[TTD_BOUNDS_SECONDS.length - 1]!;
}

/** One counted group as the database returns it: its keys, an event, and messages, segments, ttd bucket. */
export interface CountedEvent {
  keys: Record<string, string | null>;
  event: ReportEvent;
  optedOut: boolean;
  ttd: number;
  messages: number;
  segments: number;
  /** Micro-units of the account's currency whose charge became final (only on `sent` and `delivered`). */
  spend: number;
}

/** A report's row as the document defines it (spec/reports.tsp), read and written by its fields' names too. */
export type ReportRow = components["schemas"]["ReportRow"] & Record<string, string | number | null>;

/**
 * Counted events folded into one row per group, in the order of their keys. `segments` are those of the
 * messages sent in the window (what a carrier bills); `deliveryRate` is delivered ÷ (delivered + undelivered +
 * failed), the share delivered of the messages that reached a final outcome other than cancelled.
 */
export function reportRows(keys: readonly ReportKey[], events: readonly CountedEvent[]): ReportRow[] {
  const groups = new Map<string, { row: ReportRow; ttd: number[] }>();
  for (const e of events) {
    const id = JSON.stringify(keys.map((k) => e.keys[k] ?? null));
    let g = groups.get(id);
    if (!g) {
      const row: ReportRow = {
        ...Object.fromEntries(keys.map((k) => [keyName(k), e.keys[k] ?? null])),
        accepted: 0,
        sent: 0,
        delivered: 0,
        failed: 0,
        undelivered: 0,
        cancelled: 0,
        optedOut: 0,
        received: 0,
        segments: 0,
        spend: 0,
        deliveryRate: null,
        timeToDeliveredP50: null,
        timeToDeliveredP95: null,
      };
      g = { row, ttd: TTD_BOUNDS_SECONDS.map(() => 0).concat(0) };
      groups.set(id, g);
    }
    g.row[e.event] = g.row[e.event] + e.messages;
    if (e.optedOut) g.row.optedOut += e.messages;
    if (e.event === "sent") g.row.segments += e.segments;
    g.row.spend += e.spend;
    if (e.event === "delivered" && e.ttd >= 0) g.ttd[e.ttd] = (g.ttd[e.ttd] ?? 0) + e.messages;
  }
  const rows = [...groups.values()].map(({ row, ttd }) => {
    const outcomes = row.delivered + row.undelivered + row.failed;
    row.deliveryRate = outcomes === 0 ? null : Math.round((row.delivered / outcomes) * 10_000) / 10_000;
    row.timeToDeliveredP50 = percentileOf(ttd, 0.5);
    row.timeToDeliveredP95 = percentileOf(ttd, 0.95);
    return row;
  });
  const names = keys.map(keyName);
  return rows.sort((x, y) => {
    for (const n of names) {
      const a = String(x[n] ?? "");
      const b = String(y[n] ?? "");
      if (a !== b) return a < b ? -1 : 1;
    }
    return 0;
  });
}

/** A key's field in a row: the ids are named as everywhere else in the API. */
export function keyName(k: ReportKey): string {
  return k === "campaign" ? "campaignId" : k === "connector" ? "connectorId" : k === "account" ? "accountId" : k;
}
