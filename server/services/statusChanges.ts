// Every status change of a message goes through here: the conditional UPDATE, its history entry and the
// receipts for every webhook of the account (the outbox) are one atomic statement (per batch and status),
// so a change without its receipts, or receipts without the change, cannot be committed. Then the
// completion of the campaigns involved.
import { completeCampaignIfDone } from "../db/campaigns.js";
import type { JobHandoff } from "../db/jobs/index.js";
import type { Db } from "../db/knex.js";
import { findMessage, updateStatusesWithReceipts, type MessageKey } from "../db/messages/index.js";
import { canTransition, FINAL_STATUSES } from "../domain/messageStatus.js";
import { RECEIPT_SEQ, receiptBody, type ReceiptStatus } from "../domain/receiptPayload.js";

export interface StatusChange {
  status: ReceiptStatus;
  at: Date;
  providerMessageId?: string;
  /** A message sent in several SMPP segments: the carrier's id of each, the first its providerMessageId. */
  segmentIds?: string[];
  error?: { code: string; message: string } | null;
}

/** What a receipt says about its message; these never change once the message exists. */
export interface MessageFacts {
  id: string;
  accountId: string;
  to: string;
  campaignId: string | null;
  providerMessageId: string | null;
  /** A test key's message: its receipts say `test: true`. */
  test?: boolean;
  /** The caller's reference and metadata, carried in every receipt. */
  reference?: string | null;
  metadata?: Record<string, string> | null;
  /** Its price (docs/BILLING.md), carried in every receipt of a priced message. */
  priceAmount?: number | null;
  priceCurrency?: string | null;
  pricePerSegment?: number | null;
}

/**
 * Applies many changes; returns the facts of the messages that changed. A message not in a status that
 * allows its change (a late or duplicate report) is left as it is, with nothing written. With `handoff` (a job
 * of a worker making the change), the receipt jobs are inserted already claimed for that worker's receipts
 * lane, as many as its local queue has room for, and handed to it: no claim, no NOTIFY for them.
 */
export async function changeMessageStatuses(
  db: Db,
  changes: { message: MessageFacts; change: StatusChange }[],
  opts: { handoff?: JobHandoff } = {},
): Promise<MessageFacts[]> {
  const byStatus = new Map<ReceiptStatus, { message: MessageFacts; change: StatusChange }[]>();
  for (const c of changes) byStatus.set(c.change.status, [...(byStatus.get(c.change.status) ?? []), c]);
  const changed: MessageFacts[] = [];
  for (const [status, group] of byStatus) {
    const facts = new Map(
      group.map(({ message, change }) => [
        message.id,
        { ...message, providerMessageId: change.providerMessageId ?? message.providerMessageId },
      ]),
    );
    const { handoff } = opts;
    // One place per message: an account has one webhook as a rule; receipts past the places are claimable.
    const reserved = handoff?.reserve(group.length) ?? 0;
    let result;
    try {
      result = await updateStatusesWithReceipts(
        db,
        status,
        group.map(({ message, change }) => ({
          messageId: message.id,
          accountId: message.accountId,
          at: change.at,
          providerMessageId: change.providerMessageId,
          segmentIds: change.segmentIds,
          error: change.error,
          body: receiptBody({
            status,
            at: change.at,
            messageId: message.id,
            to: message.to,
            providerMessageId: facts.get(message.id)!.providerMessageId,
            campaignId: message.campaignId,
            error: change.error ?? null,
            test: message.test === true,
            reference: message.reference ?? null,
            metadata: message.metadata ?? null,
            price:
              message.priceAmount === null || message.priceAmount === undefined
                ? null
                : { amount: message.priceAmount, currency: message.priceCurrency ?? "", perSegment: message.pricePerSegment ?? 0 },
          }),
        })),
        { event: `dlr.${status}`, seq: RECEIPT_SEQ[status] },
        handoff && reserved > 0 ? { workerId: handoff.workerId, leaseMs: handoff.leaseMs, limit: reserved } : undefined,
      );
    } catch (error) {
      handoff?.release(reserved);
      throw error;
    }
    handoff?.adopt(result.claimed, reserved);
    const rows = result.changed;
    for (const row of rows) changed.push(facts.get(row.id)!);
    // After the change, not inside it: two messages finishing at once would each still see the other as
    // unfinished (write skew). Checked after each commit, the last check sees every commit; the cleaner
    // sweeps campaigns a crash left between the two.
    if (FINAL_STATUSES.includes(status)) {
      const campaigns = new Map(rows.filter((r) => r.campaignId !== null).map((r) => [r.campaignId!, facts.get(r.id)!.accountId]));
      for (const [campaignId, accountId] of campaigns) await completeCampaignIfDone(db, accountId, campaignId);
    }
  }
  return changed;
}

/** One change; undefined when the message is unknown or its status does not allow the change. */
export async function changeMessageStatus(
  db: Db,
  target: MessageFacts | MessageKey | { providerMessageId: string },
  change: StatusChange,
): Promise<MessageFacts | undefined> {
  let message: MessageFacts | undefined;
  if ("to" in target) message = target;
  else {
    const current = await findMessage(db, target);
    if (!current || !canTransition(current.status, change.status)) return undefined;
    message = current;
  }
  const [changed] = await changeMessageStatuses(db, [{ message, change }]);
  return changed;
}
