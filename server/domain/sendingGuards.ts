// The operator's guards on what an account sends (docs/API.md, "Guards"): destinations (premium-rate and
// shared-cost numbers never; numbers of no country, the satellite and international-network ranges, only where
// the deployment allows them; countries within the account's allowedCountries) and alphanumeric sender IDs
// (within the account's senderIds). E.164 senders are checked against the numbers the account holds, in the
// statement that stores the message (db/messages/insertScheduled.ts).
import { parsePhoneNumberFromString, type PhoneNumber } from "libphonenumber-js/max";
import { DomainError, invalidField } from "./errors.js";
import { destinationRefusalOf, refusalError, senderRefusal } from "./intakeRefusals.js";
import { parseValidPhone, phoneProblem } from "./phone.js";

/** What the guards read of an account's limits. */
export interface GuardLimits {
  allowedCountries: string[] | null;
  senderIds: string[] | null;
  /** E.164 prefixes the operator blocked for this account. */
  blockedPrefixes?: string[] | null;
}

/** The deployment's rules on destinations (config.ts, deploymentDestinations), the same for every door. */
export interface DeploymentDestinations {
  /** ALLOW_INTERNATIONAL_NETWORKS: +800, +808, +870, +878, +881, +882, +883 and the like (libphonenumber's region 001). */
  internationalNetworks: boolean;
  /** BLOCKED_PREFIXES: destinations no account may send to. */
  blockedPrefixes: string[];
}

/** Where an account may send: its allowedCountries and blocked prefixes, under the deployment's rules. */
export interface Destinations {
  allowedCountries: string[] | null;
  internationalNetworks: boolean;
  /** The deployment's and the account's, together. */
  blockedPrefixes?: string[];
}

/** An account's destinations under the deployment's rules. */
export const destinationsOf = (limits: GuardLimits | undefined | null, deployment: DeploymentDestinations): Destinations => ({
  allowedCountries: limits?.allowedCountries ?? null,
  internationalNetworks: deployment.internationalNetworks,
  blockedPrefixes: [...deployment.blockedPrefixes, ...(limits?.blockedPrefixes ?? [])],
});

/** Why a destination may not be sent to: its refusal's code, and the reason in words. */
export interface DestinationRefusal {
  code: "destination_not_allowed" | "destination_blocked";
  reason: string;
}

/** Why a destination (E.164, already valid) is not allowed, or undefined when it is. */
export function destinationProblem(e164: string, allowed: Destinations): string | undefined {
  return destinationRefusal(e164, allowed)?.reason;
}

/** The refusal of a destination (E.164, already valid), or undefined when it may be sent to. */
export function destinationRefusal(e164: string, allowed: Destinations): DestinationRefusal | undefined {
  return refusalOf(e164, parsePhoneNumberFromString(e164), allowed);
}

function refusalOf(e164: string, parsed: PhoneNumber | undefined, allowed: Destinations): DestinationRefusal | undefined {
  // The operator's blocked prefixes first: a blocked destination is refused as blocked whatever else it is.
  const blocked = allowed.blockedPrefixes?.find((prefix) => e164.startsWith(prefix));
  if (blocked !== undefined) return blockedBy(blocked);
  const reason = problemOf(parsed, allowed);
  return reason === undefined ? undefined : { code: "destination_not_allowed", reason };
}

function problemOf(parsed: PhoneNumber | undefined, { allowedCountries, internationalNetworks }: Destinations): string | undefined {
  const type = parsed?.getType();
  if (type === "PREMIUM_RATE") return "is a premium-rate number";
  if (type === "SHARED_COST") return "is a shared-cost number";
  // A number of a non-geographic calling code (libphonenumber's: +800, +808, +870, +878, +881, +882, +883, +888,
  // +979): satellite phones and international networks are billed at rates a pumping fraud lives on, and no
  // country list names them. (A number of a country's code that libphonenumber places in none is not one.)
  if (parsed?.isNonGeographic() && !internationalNetworks)
    return `is in an international network range (+${parsed.countryCallingCode}), which this deployment does not send to`;
  if (allowedCountries !== null) {
    const country = parsed?.country;
    if (!country || !allowedCountries.includes(country))
      return `is in ${country ?? "no single country"}, outside the account's allowed countries (${allowedCountries.join(", ")})`;
  }
  return undefined;
}

/** The refusal of a destination under `prefix`, a blocked prefix. */
export const blockedBy = (prefix: string): DestinationRefusal => ({
  code: "destination_blocked",
  reason: `is under the blocked prefix ${prefix}`,
});

/** A number as given: its E.164 form and why it may not be sent to (undefined: it may), or undefined when invalid. */
export function checkDestination(
  input: string,
  allowed: Destinations,
): { e164: string; problem?: string; refusal?: DestinationRefusal } | undefined {
  const parsed = parseValidPhone(input);
  if (!parsed) return undefined;
  const refusal = refusalOf(parsed.number, parsed, allowed);
  return { e164: parsed.number, problem: refusal?.reason, refusal };
}

/**
 * A request's destination: normalised to E.164 (400 when it is not a valid number, as requirePhone), then 422
 * destination_not_allowed when it may not be sent to. One parse for both.
 */
export function requireAllowedDestination(input: string, allowed: Destinations, path: string): string {
  const checked = checkDestination(input, allowed);
  if (!checked) throw invalidField(path, phoneProblem(input));
  const { e164, refusal } = checked;
  if (refusal) throw refusalError(destinationRefusalOf(e164, refusal, path));
  return e164;
}

/** 422 sender_not_allowed for an alphanumeric sender ID outside the account's senderIds (when it has that list). */
export function requireAllowedSenderId(from: string, limits: GuardLimits | undefined, path: string): void {
  const ids = limits?.senderIds ?? null;
  if (from.startsWith("+") || ids === null || ids.includes(from)) return;
  throw senderNotAllowed(from, path, `is not one of the account's sender IDs (${ids.join(", ")})`);
}

export function senderNotAllowed(from: string, path: string, why: string): DomainError {
  return refusalError(senderRefusal(from, path, why));
}

/** The reason given when the account does not hold an E.164 sender. */
export const NOT_HELD = "is not a number this account holds (the operator assigns numbers)";
