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
