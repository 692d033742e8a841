// The operator's guards at send time (the claim leaves such messages alone, db/sendingGuards.ts): a message
// whose E.164 sender its account no longer holds fails `sender_not_allowed`; one of a suspended account, or of a
// paused campaign, waits.
import type { Db } from "../db/knex.js";
import type { MessageKey } from "../db/messages/index.js";
import { scheduledFromUnheldSenders, scheduledOfPaused, scheduledOfSuspended } from "../db/sendingGuards.js";
import { changeMessageStatuses } from "./statusChanges.js";

export const SENDER_NOT_HELD = {
  code: "sender_not_allowed",
  message: "The account no longer holds the number this message was to be sent from; it was not sent.",
};

/** Fails (with their dlr.failed receipts) the messages whose sender their account no longer holds; their ids. */
export async function failMessagesFromUnheldSenders(db: Db, keys: MessageKey[]): Promise<Set<string>> {
  const unheld = await scheduledFromUnheldSenders(db, keys);
  if (unheld.length === 0) return new Set();
  const at = new Date();
  await changeMessageStatuses(
    db,
    unheld.map((message) => ({ message, change: { status: "failed" as const, at, error: SENDER_NOT_HELD } })),
  );
  return new Set(unheld.map((m) => m.id));
}

/** The ids of these messages whose account is suspended (they wait). */
export async function scheduledOfSuspendedAccounts(db: Db, keys: MessageKey[]): Promise<Set<string>> {
  return new Set(await scheduledOfSuspended(db, keys));
}

/** How often a paused campaign's message whose job ran at the pause looks again (resume makes it due at once). */
export const PAUSED_RECHECK_MS = 60_000;

/**
 * These messages whose campaign is paused (they wait for its resume), each with when it looks again: after
 * `recheckMs`, or when its validity ends if sooner (it is failed then, as validity still applies).
 */
export async function scheduledOfPausedCampaigns(db: Db, keys: MessageKey[], recheckMs = PAUSED_RECHECK_MS): Promise<Map<string, Date>> {
  const later = Date.now() + recheckMs;
  return new Map((await scheduledOfPaused(db, keys)).map((m) => [m.id, new Date(Math.min(later, m.validUntil?.getTime() ?? later))]));
}
