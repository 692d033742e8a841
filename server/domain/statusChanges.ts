// Every status change of a message goes through here: the conditional UPDATE, its history entry, the
// receipts for every webhook of the account (the outbox), in one transaction: a change without its receipts,
// or receipts without the change, cannot be committed. Then the campaign's completion.
import { completeCampaignIfDone } from "../db/campaigns.js";
import type { Db } from "../db/knex.js";
import { updateMessageStatus, type OwnedMessageRow } from "../db/messages.js";
import { insertReceiptDeliveries } from "../db/webhookDeliveries.js";
import { allowedFrom, FINAL_STATUSES } from "./messageStatus.js";
import { RECEIPT_SEQ, receiptBody, type ReceiptStatus } from "./receipts.js";

export interface StatusChange {
  status: ReceiptStatus;
  at: Date;
  providerMessageId?: string;
  error?: { code: string; message: string } | null;
}

/** Applies the change; undefined when the message is not in a status that allows it (nothing is written). */
export async function changeMessageStatus(
  db: Db,
  where: { id: string } | { providerMessageId: string },
  change: StatusChange,
): Promise<OwnedMessageRow | undefined> {
  const changed = await db.transaction(async (tx) => {
    const row = await updateMessageStatus(tx, where, { ...change, to: change.status, from: allowedFrom(change.status) });
    if (!row) return undefined;
    await insertReceiptDeliveries(tx, {
      accountId: row.accountId,
      messageId: row.id,
      event: `dlr.${change.status}`,
      seq: RECEIPT_SEQ[change.status],
      body: receiptBody({
        status: change.status,
        at: change.at,
        messageId: row.id,
        to: row.to,
        providerMessageId: row.providerMessageId,
        campaignId: row.campaignId,
        error: change.error ?? null,
      }),
    });
    return row;
  });
  // After the commit, not inside it: two messages finishing at once in two transactions would each still see
  // the other as unfinished (write skew). Checked after each commit, the last check sees every commit. The
  // cleaner sweeps campaigns a crash left between the two.
  if (changed?.campaignId && FINAL_STATUSES.includes(change.status)) await completeCampaignIfDone(db, changed.campaignId);
  return changed;
}
