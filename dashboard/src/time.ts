// Times: the API speaks UTC (RFC 3339); people read and pick times in the browser's own time zone.

export const timeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** "UTC+02:00" for the browser's offset at `at`. */
export function utcOffset(at: Date = new Date()): string {
  const minutes = -at.getTimezoneOffset();
  const sign = minutes >= 0 ? "+" : "-";
  const abs = Math.abs(minutes);
  return `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

/** The value of an <input type="datetime-local"> (local wall time) as a UTC ISO string, or undefined. */
export function localInputToUtc(value: string): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(value)) return undefined;
  const date = new Date(value); // a date-time without offset is local time
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** A Date as the value of an <input type="datetime-local">, in local time, to the minute. */
export function toLocalInput(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

const formatter = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });

/** A UTC timestamp from the API, shown in local time. */
export function formatTime(iso: string | null | undefined): string {
  return iso ? formatter.format(new Date(iso)) : "—";
}
