// The instants a date parameter may name. PostgreSQL's timestamptz has no year 0 and the reports widen a window
// by a day in the caller's zone, so a date at either end of the calendar (0000-01-01, 9999-12-31) once reached
// a query and came back as a 500. Every date a caller passes in a query is held to this range first: 400.
import { invalidField } from "./errors.js";

export const EARLIEST_DATE = new Date("1970-01-01T00:00:00.000Z");
/** A day short of year 10000, so a window widened by a day in any zone stays a four-digit year. */
export const LATEST_DATE = new Date("9999-12-30T00:00:00.000Z");

/** A date-time query parameter (already checked by the validator as RFC 3339), held to the range above. */
export function dateParameter(value: string | undefined, path: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (!(date >= EARLIEST_DATE && date <= LATEST_DATE))
    throw invalidField(path, `must be between ${EARLIEST_DATE.toISOString()} and ${LATEST_DATE.toISOString()}`);
  return date;
}

// What a date in a request must be: an instant that exists. ajv-formats' full date-time takes a leap second
// (23:59:60, which JavaScript's Date cannot hold: a RangeError and a 500 once) and any year, so the validator is
// given these instead, for bodies and queries alike (http/app.ts, http/batchItems.ts).
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/;
const PLAIN_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const FIRST_YEAR = 1970;
const LAST_YEAR = 9999;

function dayExists(year: number, month: number, day: number): boolean {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  return days !== undefined && day >= 1 && day <= days;
}

/** An RFC 3339 date-time naming a real instant (no leap second) within 1970–9999 once its offset is applied. */
export function isRequestDateTime(value: string): boolean {
  const m = RFC3339.exec(value);
  if (!m) return false;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (!dayExists(year, month, day) || hour > 23 || minute > 59 || second > 59) return false;
  if (m[9] && (Number(m[10]) > 23 || Number(m[11]) > 59)) return false;
  const utcYear = new Date(Date.parse(value)).getUTCFullYear();
  return utcYear >= FIRST_YEAR && utcYear <= LAST_YEAR;
}

/** An RFC 3339 full-date that exists, within 1970–9999. */
export function isRequestDate(value: string): boolean {
  const m = PLAIN_DATE.exec(value);
  if (!m) return false;
  const [year, month, day] = m.slice(1, 4).map(Number) as [number, number, number];
  return year >= FIRST_YEAR && year <= LAST_YEAR && dayExists(year, month, day);
}
