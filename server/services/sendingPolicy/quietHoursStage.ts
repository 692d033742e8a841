// The quiet-hours stage of the sending policy (services/sendingPolicy/; docs/API.md, "Sending policy"): a
// marketing message of an account with quiet hours, due while the window holds in its recipient's local time,
// is held until the window ends there. It stays `scheduled`, shows that end as deferredUntil, and its job
// waits until then, or until its validUntil if sooner (the claim then fails it as validity_expired).
//
// The recipient's zone(s), first that tells: the contact's timeZone; the zones of the number (all of them when
// its country spans several and the number does not say which: the window must be open in every one); the
// account's defaultTimeZone. Zones that share no open hour fall back to the defaultTimeZone
// (domain/quietHours.ts, quietHoursDecision).
import type { PolicyFacts } from "../../db/sendingPolicy.js";
import { setDeferredUntil } from "../../db/quietHours.js";
import { timeZonesOfNumber } from "../../domain/numberTimeZones.js";
import { quietHoursDecision, type QuietHoursDecision, type QuietWindow } from "../../domain/quietHours.js";
import { isKnownTimeZone } from "../../domain/timeZones.js";
import type { PolicyStage } from "./types.js";

/** The zones whose wall clock decides for this recipient, first that tells: contact, number, account default. */
export function recipientTimeZones(m: Pick<PolicyFacts, "to" | "contactTimeZone" | "defaultTimeZone">): readonly string[] {
  if (m.contactTimeZone !== null && isKnownTimeZone(m.contactTimeZone)) return [m.contactTimeZone];
  const byNumber = timeZonesOfNumber(m.to);
  return byNumber.length > 0 ? byNumber : [defaultZone(m)];
}

// Checked when stored; a runtime whose zone database lacks it reads UTC rather than holding nothing.
const defaultZone = (m: Pick<PolicyFacts, "defaultTimeZone">) => (isKnownTimeZone(m.defaultTimeZone) ? m.defaultTimeZone : "UTC");

export const quietHoursStage: PolicyStage = async (db, messages, held, { now, toJobTime }) => {
  const passing: PolicyFacts[] = [];
  const marks: { id: string; accountId: string; until: Date | null }[] = [];
  // A campaign's messages share a window, a few zone sets and `now`: each combination is worked out once.
  const decisions = new Map<string, QuietHoursDecision>();
  for (const m of messages) {
    const window: QuietWindow | null =
      m.category === "marketing" && m.quietHoursStart !== null && m.quietHoursEnd !== null
        ? { start: m.quietHoursStart, end: m.quietHoursEnd }
        : null;
    let heldUntil: Date | null = null;
    if (window) {
      const zones = recipientTimeZones(m);
      const fallback = defaultZone(m);
      const key = `${window.start}-${window.end} ${fallback} ${zones.join("&")}`;
      let decision = decisions.get(key);
      if (!decision) decisions.set(key, (decision = quietHoursDecision(now, window, zones, fallback)));
      heldUntil = decision.heldUntil;
    }
    // deferred_until is written only when it changes: null for a message not (or no longer) held.
    if ((m.deferredUntil?.getTime() ?? null) !== (heldUntil?.getTime() ?? null))
      marks.push({ id: m.id, accountId: m.accountId, until: heldUntil });
    if (heldUntil === null) {
      passing.push(m);
      continue;
    }
    const wakeAt = toJobTime(heldUntil);
    const until = m.validUntil !== null && m.validUntil < wakeAt ? m.validUntil : wakeAt;
    held.set(m.id, { until, reason: `quiet hours in the recipient's time zone until ${heldUntil.toISOString()}` });
  }
  await setDeferredUntil(db, marks);
  return passing;
};
