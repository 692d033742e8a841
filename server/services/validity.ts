// The send-time end of validity: a message past its validUntil is never handed to the provider.
import type { Db } from "../db/knex.js";
import { scheduledPastValidity, type MessageKey } from "../db/messages/index.js";
import { VALIDITY_EXPIRED } from "../domain/validity.js";
import { changeMessageStatuses } from "./statusChanges.js";

/**
 * Called for the messages of a send window the claim did not take (the claim skips those past their validity):
 * the ones still `scheduled` past their validity become `failed` (`validity_expired`, with their dlr.failed
 * receipts). Returns their ids. Costs nothing in the common case: it runs only when something was not claimed.
 */
export async function failMessagesPastValidity(db: Db, keys: MessageKey[]): Promise<Set<string>> {
  const expired = await scheduledPastValidity(db, keys);
  if (expired.length > 0) {
    const at = new Date();
    await changeMessageStatuses(
      db,
      expired.map((message) => ({ message, change: { status: "failed" as const, at, error: VALIDITY_EXPIRED } })),
    );
  }
  return new Set(expired.map((m) => m.id));
}
