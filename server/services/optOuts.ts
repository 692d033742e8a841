// The opt-out list: the path form of a number, adding and removing entries, and the send-time check that keeps
// a message scheduled before its recipient opted out from reaching the provider.
import type { Knex } from "knex";
import type { Db } from "../db/knex.js";
import { deleteOptOut, insertOptOut, scheduledToOptedOut, type OptOutRow } from "../db/optOuts.js";
import { invalidField, notFound } from "../domain/errors.js";
import { toE164 } from "../domain/phone.js";
import { changeMessageStatuses } from "./statusChanges.js";

export const RECIPIENT_OPTED_OUT = {
  code: "recipient_opted_out",
  message: "The recipient opted out of messages from this account; the message was not sent.",
};

/** `{phone}` of /opt-outs/{phone}: E.164 with its `+` (sent as %2B) or bare digits. */
export function phoneFromPath(raw: string): string {
  const e164 = toE164(raw.startsWith("+") ? raw : `+${raw}`);
  if (!e164) throw invalidField("/path/phone", "must be a phone number in E.164, with or without its +, e.g. 14155550123");
  return e164;
}

export async function addOptOut(db: Knex, accountId: string, phone: string): Promise<{ optOut: OptOutRow; created: boolean }> {
  return insertOptOut(db, accountId, { phone, source: "api", keyword: null, messageId: null });
}

export async function removeOptOut(db: Knex, accountId: string, phone: string): Promise<void> {
  if (!(await deleteOptOut(db, accountId, phone))) throw notFound("Opt-out");
}

/**
 * Called at the start of a send batch: the batch's messages whose recipient is now on the opt-out list become
 * `failed` (`recipient_opted_out`, with their dlr.failed receipts) and so are not claimed for the provider.
 */
export async function failMessagesToOptedOut(db: Db, messageIds: string[]): Promise<void> {
  const blocked = await scheduledToOptedOut(db, messageIds);
  if (blocked.length === 0) return;
  const at = new Date();
  await changeMessageStatuses(
    db,
    blocked.map((message) => ({ message, change: { status: "failed" as const, at, error: RECIPIENT_OPTED_OUT } })),
  );
}
