// Quiet hours (docs/API.md, "Sending policy"): a daily window of LOCAL wall-clock time in which marketing
// messages are held. Pure: instants in, instants out; luxon (over the runtime's zone database) does every
// conversion between an instant and a zone's wall clock, so DST follows each zone's rules, never a fixed offset.
import { DateTime } from "luxon";

/** A daily window, `HH:MM` to `HH:MM` local time; `start` after `end` means it crosses midnight. */
export interface QuietWindow {
  /** Held from this minute on. */
  start: string;
  /** Open again from this minute on. */
  end: string;
}

/**
 * How far ahead `firstOpenInstant` looks for an instant open in every zone: a day for the daily pattern, a
 * second day for DST days and windows that cross midnight. Zones whose open hours never overlap have no such
 * instant at all: a `+1` number whose area code is unknown is in every NANP zone, Pago Pago to Guam, which
 * cover 11.5 hours of the clock, so a window leaving fewer open hours (19:00–09:00) is never open in all.
 */
export const OPEN_INSTANT_HORIZON_MS = 48 * 3600_000;

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Is `at` inside the window on the wall clock of `zone`? Minute resolution: 07:59:59 is inside 21:00–08:00. */
export function isInQuietHours(at: Date, window: QuietWindow, zone: string): boolean {
  const local = DateTime.fromJSDate(at, { zone });
  const m = local.hour * 60 + local.minute;
  const start = minutesOf(window.start);
  const end = minutesOf(window.end);
  return start < end ? m >= start && m < end : m >= start || m < end;
}

/**
 * For an instant `at` inside the window in `zone`: the instant the window ends there, `end` local time on the
 * day it falls (the next day for a window crossing midnight entered before midnight).
 *
 * DST: the end is local wall-clock time on that day, as the zone's rules make it:
 * - a local end that does not exist (skipped by a spring-forward gap) moves forward by the gap, as luxon
 *   resolves it: 02:30 on 2026-03-08 in Los Angeles is 03:30 PDT;
 * - a local end that happens twice (a fall-back overlap) is its FIRST occurrence still after `at`: 01:30 on
 *   2026-11-01 in Los Angeles is 01:30 PDT, or 01:30 PST for an instant already past 01:30 PDT. Both offsets
 *   come from luxon's getPossibleOffsets: DateTime.fromObject alone picks by the offset in force at the time
 *   the code runs, so its answer would change between summer and winter.
 */
export function quietHoursEnd(at: Date, window: QuietWindow, zone: string): Date {
  const local = DateTime.fromJSDate(at, { zone });
  const m = local.hour * 60 + local.minute;
  const start = minutesOf(window.start);
  const end = minutesOf(window.end);
  const day = start > end && m >= start ? local.plus({ days: 1 }) : local;
  const wallClock = DateTime.fromObject(
    { year: day.year, month: day.month, day: day.day, hour: Math.floor(end / 60), minute: end % 60 },
    { zone },
  );
  const occurrences = wallClock
    .getPossibleOffsets()
    .map((d) => d.toMillis())
    .sort((x, y) => x - y);
  return new Date(occurrences.find((t) => t > at.getTime()) ?? occurrences[occurrences.length - 1]!);
}

/**
 * The earliest instant ≥ `now` at which the window is open in EVERY one of `zones`: `now` itself when none
 * holds it. Pushes the candidate to the window's end in whichever zone still holds it until none does; null
 * when that goes past OPEN_INSTANT_HORIZON_MS (the zones' open hours do not overlap).
 */
export function firstOpenInstant(now: Date, window: QuietWindow, zones: readonly string[]): Date | null {
  let t = now;
  // Each step moves t to a window end strictly later; a zone has at most three ends within the horizon (a
  // fourth on a fall-back day whose overlap enters the window twice). The horizon ends the search first.
  for (let step = 0; step <= 4 * zones.length + 1; step++) {
    const holding = zones.find((zone) => isInQuietHours(t, window, zone));
    if (holding === undefined) return t;
    t = quietHoursEnd(t, window, holding);
    if (t.getTime() - now.getTime() > OPEN_INSTANT_HORIZON_MS) return null;
  }
  return null;
}

export interface QuietHoursDecision {
  /** When the message may go: null when the window is open now (not held). */
  heldUntil: Date | null;
  /** The zones had no common open instant, so `fallbackZone` alone decided. */
  fellBack: boolean;
}

/**
 * Quiet hours for one recipient whose local time is any of `zones` (a number whose country spans several and
 * that does not say which): held until the window is open in all of them. When they have no common open
 * instant, `fallbackZone` (the account's defaultTimeZone) decides alone: holding such a recipient forever, or
 * never, would both be wrong; the account's own zone is the one its operator chose for recipients it cannot place.
 */
export function quietHoursDecision(now: Date, window: QuietWindow, zones: readonly string[], fallbackZone: string): QuietHoursDecision {
  const open = firstOpenInstant(now, window, zones);
  if (open !== null) return { heldUntil: open.getTime() > now.getTime() ? open : null, fellBack: false };
  const inFallback = isInQuietHours(now, window, fallbackZone) ? quietHoursEnd(now, window, fallbackZone) : null;
  return { heldUntil: inFallback, fellBack: true };
}
