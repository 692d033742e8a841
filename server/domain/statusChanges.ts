// Every status change of a message goes through here: the conditional UPDATE, its history entry and the
// receipts for every webhook of the account (the outbox) are one atomic statement, so a change without its
// receipts, or receipts without the change, cannot be committed. Then the campaign's completion.
import { completeCampaignIfDone } from "../db/campaigns.js";
import type { Db } from "../db/knex.js";
import { findMessage, updateStatusWithReceipts } from "../db/messages.js";
import { DELIVER_RECEIPT_JOB } from "../db/webhookDeliveries.js";
import { allowedFrom, canTransition, FINAL_STATUSES } from "./messageStatus.js";
import { RECEIPT_SEQ, receiptBody, type ReceiptStatus } from "./receipts.js";

export interface StatusChange {
  status: ReceiptStatus;
  at: Date;
  providerMessageId?: string;
  error?: { code: string; message: string } | null;
}

/** What a receipt says about its message; these never change once the message exists. */
export interface MessageFacts {
  id: string;
  to: string;
  campaignId: string | null;
  providerMessageId: string | null;
}

/**
 * Applies the change; undefined when the message is unknown or not in a status that allows it (a late or
 * duplicate report), in which case nothing is written.
 */
export async function changeMessageStatus(
  db: Db,
  target: MessageFacts | { id: string } | { providerMessageId: string },
  change: StatusChange,
): Promise<MessageFacts | undefined> {
  let facts: MessageFacts | undefined;
  if ("to" in target) facts = target;
  else {
    const current = await findMessage(db, target);
    if (!current || !canTransition(current.status, change.status)) return undefined;
    facts = current;
  }
  const providerMessageId = change.providerMessageId ?? facts.providerMessageId;
  const body = receiptBody({
    status: change.status,
    at: change.at,
    messageId: facts.id,
    to: facts.to,
    providerMessageId,
    campaignId: facts.campaignId,
    error: change.error ?? null,
  });
  const changed = await updateStatusWithReceipts(
    db,
    facts.id,
    { to: change.status, from: allowedFrom(change.status), at: change.at, providerMessageId: change.providerMessageId, error: change.error },
    { event: `dlr.${change.status}`, seq: RECEIPT_SEQ[change.status], body, jobKind: DELIVER_RECEIPT_JOB },
  );
  if (!changed) return undefined;
  // After the change, not inside it: two messages finishing at once would each still see the other as
  // unfinished (write skew). Checked after each commit, the last check sees every commit; the cleaner
  // sweeps campaigns a crash left between the two.
  if (facts.campaignId && FINAL_STATUSES.includes(change.status)) await completeCampaignIfDone(db, facts.campaignId);
  return { ...facts, providerMessageId };
}
