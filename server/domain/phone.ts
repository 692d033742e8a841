import { parsePhoneNumberFromString, type CountryCode, type PhoneNumber } from "libphonenumber-js/max";
import { invalidField } from "./errors.js";

const SEPARATORS = /[\s\-.()]/g;
// At least one letter: a sender of digits alone (`14155550111`) is a number written without its `+`, perhaps
// another account's, and carriers deliver it as that number; it must be written as E.164 and held.
const ALPHANUMERIC_SENDER = /^(?=[0-9]*[A-Za-z])[A-Za-z0-9]{1,11}$/;

/**
 * E.164 form of a phone number, or undefined when it is not one. Spaces, dashes, dots and parentheses are
 * stripped; the `+country` prefix is required (a national number is ambiguous); the number must be valid for
 * its country according to libphonenumber's full metadata.
 */
export function toE164(input: string): string | undefined {
  return parseValidPhone(input)?.number;
}

/** The parsed number of toE164, for a caller that reads more of it (its type, its country). */
export function parseValidPhone(input: string): PhoneNumber | undefined {
  const stripped = input.replace(SEPARATORS, "");
  if (!/^\+[1-9][0-9]{6,14}$/.test(stripped)) return undefined;
  const parsed = parsePhoneNumberFromString(stripped);
  return parsed?.isValid() ? parsed : undefined;
}

/**
 * Why `input` is no phone number, in words that fit it: one written with its `+country` prefix is not a valid
 * number of that country (the prefix is not what is missing); one without it is told to add it.
 */
export function phoneProblem(input: string): string {
  return input.trim().startsWith("+")
    ? "is not a valid phone number of its country (check the digits after the +country prefix)"
    : "must be a phone number with its +country prefix, e.g. +14155550123";
}

/** Normalises a phone number of a request field or throws a 400 pointing at that field. */
export function requirePhone(input: string, path: string): string {
  const e164 = toE164(input);
  if (!e164) throw invalidField(path, phoneProblem(input));
  return e164;
}

/** A sender is an E.164 number or an alphanumeric sender ID of 1 to 11 letters and digits, one a letter at least. */
export function requireSender(input: string, path: string): string {
  if (ALPHANUMERIC_SENDER.test(input)) return input;
  const e164 = input.trim().startsWith("+") ? toE164(input) : undefined;
  if (/^[0-9\s().-]+$/.test(input) && !e164)
    throw invalidField(path, "is a number without its +country prefix: write it in E.164 (e.g. +14155550123); a sender ID needs a letter");
  if (!e164) throw invalidField(path, "must be an E.164 number or 1 to 11 letters and digits, at least one a letter");
  return e164;
}

/** SMPP's type of number (TON) values that matter here (SMPP 3.4, 5.2.5). */
const TON_INTERNATIONAL = 1;
const TON_NATIONAL = 2;
const TON_ALPHANUMERIC = 5;

/**
 * An SMPP address as E.164 where it is a number, read with its TON: international (TON 1, or any address
 * written with `+` or the `00` international prefix), national (TON 2: in `defaultCountry`, the link's
 * SMPP_DEFAULT_COUNTRY), or unknown (TON 0: a valid international number, else a national one of
 * `defaultCountry`; without one, `011` then an international number is that number). Anything else, an
 * alphanumeric sender among them, comes back as given. A STOP from
 * `07911123457` (national, in GB) was stored under that text and never matched the opt-out list.
 */
export function fromSmppAddress(raw: string, ton: number, defaultCountry?: string): string {
  if (ton === TON_ALPHANUMERIC) return raw;
  const digits = raw.replace(SEPARATORS, "");
  const international = digits.startsWith("+")
    ? digits
    : digits.startsWith("00")
      ? `+${digits.slice(2)}`
      : ton === TON_INTERNATIONAL
        ? `+${digits}`
        : undefined;
  if (international) return toE164(international) ?? (/^\+[1-9]\d{6,14}$/.test(international) ? international : raw);
  // 011 is the exit code of the North American plan, where many carriers write the senders of other countries
  // with it. With a default country, libphonenumber reads that country's own exit code (011 in the US, and in
  // GB the national 0113… of Leeds), so this is only for a link without one.
  if (!defaultCountry && digits.startsWith("011")) {
    const exited = toE164(`+${digits.slice(3)}`);
    if (exited) return exited;
  }
  if (ton !== TON_NATIONAL) {
    const asInternational = toE164(`+${digits}`);
    if (asInternational) return asInternational;
  }
  const national =
    defaultCountry && /^\d{4,17}$/.test(digits) ? parsePhoneNumberFromString(digits, defaultCountry as CountryCode) : undefined;
  if (national?.isValid()) return national.number;
  return ton === TON_NATIONAL || !/^[1-9]\d{6,14}$/.test(digits) ? raw : `+${digits}`;
}

/**
 * True for a premium-rate or shared-cost number (libphonenumber's number type): a reply or a message to one
 * costs its sender and pays its holder, the heart of SMS pumping, so automatic replies never go to them.
 */
export function isPremiumOrSharedCost(e164: string): boolean {
  const type = parsePhoneNumberFromString(e164)?.getType();
  return type === "PREMIUM_RATE" || type === "SHARED_COST";
}

// Countries by number prefix: libphonenumber tells a number's country by its leading digits (an area code in
// the NANP, a range within +44 or +7), which its first seven digits always include. A parse costs about 10 µs;
// a campaign of a million numbers looks up a few thousand prefixes instead. Bounded: cleared when full.
const countries = new Map<string, string>();
const PREFIX = 8; // "+" and seven digits

/** The ISO 3166 code of an E.164 number's country (GB, US, …), or "" when it has none (an alphanumeric sender). */
export function countryOf(e164: string): string {
  const prefix = e164.slice(0, PREFIX);
  let found = countries.get(prefix);
  if (found === undefined) {
    found = e164.startsWith("+") ? (parsePhoneNumberFromString(e164)?.country ?? "") : "";
    if (countries.size >= 100_000) countries.clear();
    countries.set(prefix, found);
  }
  return found;
}
