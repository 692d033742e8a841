// The opt-out list: the path form of a number, adding and removing entries, and the send-time check that keeps
// a message scheduled before its recipient opted out from reaching the provider.
import type { Knex } from "knex";
import type { Db } from "../db/knex.js";
import type { MessageKey } from "../db/messages/index.js";
import { deleteOptOut, insertOptOut, insertOptOuts, scheduledToOptedOut, type OptOutRow } from "../db/optOuts.js";
import { insertEventDeliveries } from "../db/webhookDeliveries.js";
import { invalidField, notFound } from "../domain/errors.js";
import { contactOptBody } from "../domain/events.js";
import { phoneProblem, toE164 } from "../domain/phone.js";
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

/** A change of the list through the API, with its event in the same transaction. */
async function apiListEvent(tx: Knex, accountId: string, event: "contact.opted_out" | "contact.opted_in", phone: string): Promise<void> {
  const body = contactOptBody({ event, at: new Date(), phone, source: "api", keyword: null, messageId: null });
  await insertEventDeliveries(tx, accountId, { event, body, messageId: null, seq: 1 });
}

export async function addOptOut(db: Knex, accountId: string, phone: string): Promise<{ optOut: OptOutRow; created: boolean }> {
  return db.transaction(async (tx) => {
    const added = await insertOptOut(tx, accountId, { phone, source: "api", keyword: null, messageId: null });
    if (added.created) await apiListEvent(tx, accountId, "contact.opted_out", phone);
    return added;
  });
}

export interface OptOutImportError {
  row: number;
  field: "phone";
  code: "invalid_phone" | "duplicate_in_import";
  detail: string;
}

/**
 * POST /opt-outs/import: every row checked (a number with its +country prefix, once per import), the valid
 * ones added in one statement, each new one with its `contact.opted_out` event; a number already on the list
 * is counted in `existing`, not an error, so an export reads back as it is.
 */
export async function importOptOuts(tx: Knex, accountId: string, rows: { phone: string }[]) {
  const errors: OptOutImportError[] = [];
  const seen = new Set<string>();
  const phones: string[] = [];
  rows.forEach((r, i) => {
    const phone = toE164(r.phone);
    if (!phone)
      errors.push({
        row: i + 1,
        field: "phone",
        code: "invalid_phone",
        detail: `${JSON.stringify(r.phone)} ${phoneProblem(String(r.phone))}.`,
      });
    else if (seen.has(phone))
      errors.push({ row: i + 1, field: "phone", code: "duplicate_in_import", detail: `${phone} is in an earlier row of this import.` });
    else {
      seen.add(phone);
      phones.push(phone);
    }
  });
  const added = await insertOptOuts(tx, accountId, phones);
  for (const phone of added) await apiListEvent(tx, accountId, "contact.opted_out", phone);
  return { imported: added.length, existing: phones.length - added.length, failed: errors.length, errors };
}

export async function removeOptOut(db: Knex, accountId: string, phone: string): Promise<void> {
  await db.transaction(async (tx) => {
    if (!(await deleteOptOut(tx, accountId, phone))) throw notFound("Opt-out");
    await apiListEvent(tx, accountId, "contact.opted_in", phone);
  });
}

/**
 * Messages the send claim left alone because their recipient is on the opt-out list (db/messages/transitions.ts
 * claimMessagesForSending) become `failed` (`recipient_opted_out`, with their dlr.failed receipts). Returns
 * the ids it failed.
 */
export async function failMessagesToOptedOut(db: Db, keys: MessageKey[]): Promise<Set<string>> {
  const blocked = await scheduledToOptedOut(db, keys);
  if (blocked.length === 0) return new Set();
  const at = new Date();
  await changeMessageStatuses(
    db,
    blocked.map((message) => ({ message, change: { status: "failed" as const, at, error: RECIPIENT_OPTED_OUT } })),
  );
  return new Set(blocked.map((m) => m.id));
}
