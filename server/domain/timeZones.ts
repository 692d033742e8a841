// IANA time zone names, as the API accepts them (a contact's timeZone, the account's defaultTimeZone). Luxon
// answers from the runtime's own zone database (ICU), the same one that later turns quiet hours into instants.
import { IANAZone } from "luxon";
import { DomainError } from "./errors.js";

// Names found valid: luxon's check builds an Intl.DateTimeFormat every time (about 0.1 ms), and the send path
// asks per message. Bounded by the zone database; invalid names are not kept.
const known = new Set<string>();

export function isKnownTimeZone(name: string): boolean {
  if (known.has(name)) return true;
  const valid = IANAZone.isValidZone(name);
  if (valid) known.add(name);
  return valid;
}

/** The name, or a 422 `invalid_time_zone` problem pointing at `path`. */
export function requireTimeZone(name: string, path: string): string {
  if (isKnownTimeZone(name)) return name;
  throw new DomainError("invalid_time_zone", `${JSON.stringify(name)} is not a known IANA time zone name, e.g. America/Los_Angeles.`, {
    errors: [{ path, message: "not a known IANA time zone" }],
  });
}
