// A message's price by a price list (docs/BILLING.md): the longest matching prefix, else the destination's
// country, else the list's default; none of them: `no_price`. Integers of micro-units only: a price is
// perSegment × segments, never a fraction.
import { DomainError } from "../domain/errors.js";
import { countryOf } from "../domain/phone.js";
import { checkCountry } from "../domain/isoCodes.js";

export interface PriceEntry {
  prefix?: string;
  country?: string;
  pricePerSegment: number;
}

export interface PriceListRules {
  name: string;
  currency: string;
  entries: PriceEntry[];
  default: number | null;
}

export interface MessagePrice {
  amount: number;
  currency: string;
  perSegment: number;
}

/** A price list made ready for lookups: prefixes longest first, countries by code. */
export interface PriceBook {
  currency: string;
  prefixes: [string, number][];
  countries: Map<string, number>;
  default: number | null;
}

export function priceBook(list: PriceListRules): PriceBook {
  return {
    currency: list.currency,
    prefixes: list.entries
      .filter((e) => e.prefix !== undefined)
      .map((e): [string, number] => [e.prefix!, e.pricePerSegment])
      .sort((a, b) => b[0].length - a[0].length),
    countries: new Map(list.entries.filter((e) => e.country !== undefined).map((e) => [e.country!, e.pricePerSegment])),
    default: list.default,
  };
}

/** The price of a message of `segments` to `to` (E.164); throws 422 `no_price` naming `path`. */
export function priceOf(book: PriceBook, to: string, segments: number, path: string): MessagePrice {
  const perSegment = book.prefixes.find(([prefix]) => to.startsWith(prefix))?.[1] ?? book.countries.get(countryOf(to)) ?? book.default;
  if (perSegment === null)
    throw new DomainError("no_price", `The account's price list has no price for ${to}: not accepted.`, {
      errors: [{ path, message: "no price for this destination" }],
    });
  const amount = perSegment * segments;
  if (!Number.isSafeInteger(amount)) throw new Error(`a price of ${perSegment} × ${segments} is past the safe integers`);
  return { amount, currency: book.currency, perSegment };
}

/** The entries of a list as put, checked: exactly one of prefix and country each (a country that exists), none twice. */
export function checkPriceEntries(entries: PriceEntry[]): void {
  const seen = new Set<string>();
  entries.forEach((e, i) => {
    if (e.country !== undefined) checkCountry(e.country, `/body/entries/${i}/country`);
    const key = e.prefix ?? (e.country === undefined ? undefined : `country:${e.country}`);
    if ((e.prefix === undefined) === (e.country === undefined))
      throw new DomainError("validation_failed", "Each entry has exactly one of prefix and country.", {
        errors: [{ path: `/body/entries/${i}`, message: "exactly one of prefix and country" }],
      });
    if (seen.has(key!))
      throw new DomainError("validation_failed", `The entry ${e.prefix ?? e.country} appears twice.`, {
        errors: [{ path: `/body/entries/${i}`, message: "appears twice" }],
      });
    seen.add(key!);
  });
}
