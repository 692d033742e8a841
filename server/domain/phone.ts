import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { invalidField } from "./errors.js";

const SEPARATORS = /[\s\-.()]/g;
const ALPHANUMERIC_SENDER = /^[A-Za-z0-9]{1,11}$/;

/**
 * E.164 form of a phone number, or undefined when it is not one. Spaces, dashes, dots and parentheses are
 * stripped; the `+country` prefix is required (a national number is ambiguous); the number must be valid for
 * its country according to libphonenumber's full metadata.
 */
export function toE164(input: string): string | undefined {
  const stripped = input.replace(SEPARATORS, "");
  if (!/^\+[1-9][0-9]{6,14}$/.test(stripped)) return undefined;
  const parsed = parsePhoneNumberFromString(stripped);
  return parsed?.isValid() ? parsed.number : undefined;
}

/** Normalises a phone number of a request field or throws a 400 pointing at that field. */
export function requirePhone(input: string, path: string): string {
  const e164 = toE164(input);
  if (!e164) throw invalidField(path, "must be a valid phone number with its +country prefix, e.g. +14155550123");
  return e164;
}

/** A sender is an E.164 number or an alphanumeric sender ID of 1 to 11 characters. */
export function requireSender(input: string, path: string): string {
  if (ALPHANUMERIC_SENDER.test(input)) return input;
  const e164 = input.trim().startsWith("+") ? toE164(input) : undefined;
  if (!e164) throw invalidField(path, "must be an E.164 number or 1 to 11 letters and digits");
  return e164;
}
