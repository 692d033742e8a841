// Message reports (docs/REPORTS.md): the window and zone a report is asked for, checked and widened to the
// counts' quarter hours, then the counted events folded into rows (reports/reportRows.ts).
import { getAccountSettings } from "../db/accountSettings.js";
import type { Db } from "../db/knex.js";
import { readMessageCounts } from "./countsTable.js";
import { EARLIEST_DATE } from "../domain/dateBounds.js";
import { invalidField } from "../domain/errors.js";
import { reportRows, type ReportKey, type ReportRow } from "./reportRows.js";
import { requireTimeZone } from "../domain/timeZones.js";

const QUARTER_HOUR_MS = 15 * 60_000;
const DAY_MS = 86_400_000;
/** The longest window a report may cover. */
export const MAX_REPORT_DAYS = 400;

export interface ReportRequest {
  /** The account reported on; null for every account (an operator key without `accountId`). */
  accountId: string | null;
  since?: Date;
  until?: Date;
  groupBy?: readonly ReportKey[];
  tz?: string;
  campaignId?: string;
  /** The operator's reports are in UTC by default, whichever account they pick; an account's in its own zone. */
  byOperator: boolean;
}

export interface MessageReport {
  since: Date;
  until: Date;
  tz: string;
  groupBy: readonly ReportKey[];
  rows: ReportRow[];
}

export async function messageReport(db: Db, r: ReportRequest): Promise<MessageReport> {
  const groupBy = r.groupBy ?? [];
  if (new Set(groupBy).size !== groupBy.length) throw invalidField("/query/groupBy", "names a key twice");
  const until = new Date(Math.ceil((r.until ?? new Date()).getTime() / QUARTER_HOUR_MS) * QUARTER_HOUR_MS);
  // A default window never starts before the first date a request may name (domain/dateBounds.ts).
  const defaultSince = new Date(Math.max(until.getTime() - 7 * DAY_MS, EARLIEST_DATE.getTime()));
  const since = new Date(Math.floor((r.since ?? defaultSince).getTime() / QUARTER_HOUR_MS) * QUARTER_HOUR_MS);
  if (since >= until) throw invalidField("/query/since", "must be before until");
  if (until.getTime() - since.getTime() > MAX_REPORT_DAYS * DAY_MS)
    throw invalidField("/query/until", `must be at most ${MAX_REPORT_DAYS} days after since`);
  const tz =
    r.tz !== undefined
      ? requireTimeZone(r.tz, "/query/tz")
      : r.byOperator || r.accountId === null
        ? "UTC"
        : (await getAccountSettings(db, r.accountId)).defaultTimeZone;
  const events = await readMessageCounts(db, { accountId: r.accountId, since, until, tz, groupBy, campaignId: r.campaignId });
  const rows = reportRows(groupBy, events);
  // Without keys the whole window is one row, counted or not.
  return { since, until, tz, groupBy, rows: groupBy.length === 0 && rows.length === 0 ? reportRows([], [emptyEvent]) : rows };
}

const emptyEvent = { keys: {}, event: "accepted" as const, optedOut: false, ttd: -1, messages: 0, segments: 0, spend: 0 };
