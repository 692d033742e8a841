// Resolving unknown send outcomes from what the carrier says later. A message whose submit was on the wire when
// the worker died or the link dropped stays `sending` (shown as `scheduled`) with its outcome declared unknown;
// a receipt that matched no provider id is kept (db/unmatchedReceipts.ts). When exactly one such receipt and
// one such message match, the message goes sending → sent (dlr.sent, the receipt's id as providerMessageId,
// sent at its submit time) → the receipt's status (its dlr), through the ordinary status path.
import type { Db } from "../db/knex.js";
import { findMessages } from "../db/messages/index.js";
import { deleteUnmatchedReceipts, findUnambiguousMatches, insertUnmatchedReceipt } from "../db/unmatchedReceipts.js";
import type { ReceiptFacts } from "../db/unmatchedReceipts.js";
import { changeMessageStatuses } from "./statusChanges.js";

/**
 * A receipt's id is looked up this many times (the submit's answer may not be recorded yet) before the
 * receipt is kept as unmatched.
 */
export const LOOKUPS_BEFORE_UNMATCHED = 5;

/** Matches kept receipts to messages of unknown outcome and applies the unambiguous ones; returns how many. */
export async function resolveUnknownOutcomes(db: Db): Promise<number> {
  const matches = await findUnambiguousMatches(db);
  if (matches.length === 0) return 0;
  const messages = new Map(
    (await findMessages(db, { keys: matches.map((m) => ({ id: m.messageId, accountId: m.accountId })) })).map((m) => [m.id, m]),
  );
  const pending = matches.filter((m) => messages.get(m.messageId)?.status === "sending");
  const sent = await changeMessageStatuses(
    db,
    pending.map((m) => ({
      message: messages.get(m.messageId)!,
      change: { status: "sent", at: m.submittedAt, providerMessageId: m.receipt.providerMessageId },
    })),
  );
  const sentIds = new Set(sent.map((m) => m.id));
  await changeMessageStatuses(
    db,
    pending
      .filter((m) => sentIds.has(m.messageId))
      .map((m) => ({
        message: { ...messages.get(m.messageId)!, providerMessageId: m.receipt.providerMessageId },
        change: { status: m.receipt.status, at: m.receipt.at, error: m.receipt.error },
      })),
  );
  await deleteUnmatchedReceipts(
    db,
    matches.map((m) => m.receipt.id),
  );
  return sent.length;
}

/** Keeps a receipt that matched no provider id, and tries to resolve an unknown outcome with it. */
export async function keepUnmatchedReceipt(db: Db, receipt: ReceiptFacts): Promise<number> {
  await insertUnmatchedReceipt(db, receipt);
  return resolveUnknownOutcomes(db);
}
