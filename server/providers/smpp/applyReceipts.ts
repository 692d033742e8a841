// SMPP delivery receipts applied a batch at a time: the segments' receipts recorded in one statement, their
// messages read in one, and the status changes made by the same set-wise statement the simulator's reports use
// (statusChanges.ts). Called twice over:
// - by the connection, for the receipts read together, before their deliver_sm_resp (providers/index.ts): the
//   common case writes no job at all, only what the receipt changes (issue "write budget", bench/NOTES.md);
// - by the `smpp_receipt` job (jobs/handlers/smppReceipt.ts), for a receipt that must wait: one that overtook
//   the recording of its submit_sm_resp, or one the connection could not apply at once (stored as a job then).
// A multipart message gets ONE final status: delivered when every segment is delivered; the first segment that
// fails for good decides undelivered or failed.
import type { Db } from "../../db/knex.js";
import type { JobHandoff, JobPayload } from "../../db/jobs/index.js";
import { findMessages, type OwnedMessageRow } from "../../db/messages/index.js";
import { recordSegmentReceipts, type SegmentReceipt, type SegmentRow } from "../../db/smppSegments.js";
import { carrierIdCandidates } from "../../domain/carrierIds.js";
import { canTransition } from "../../domain/messageStatus.js";
import type { Logger } from "../../logger.js";
import { changeMessageStatus, changeMessageStatuses, type MessageFacts, type StatusChange } from "../../services/statusChanges.js";
import { keepUnmatchedReceipt, LOOKUPS_BEFORE_UNMATCHED } from "../../services/unknownOutcomes.js";
import { receiptLag } from "./smppMetrics.js";
import { outcomeOf, receiptError } from "./receiptPdus.js";

export type ReceiptPayload = JobPayload<"smpp_receipt">;

/** A receipt to apply, and how many looks it has had (0: just read from the link; a job's attempt after). */
export interface ReceiptToApply {
  payload: ReceiptPayload;
  attempt: number;
  maxAttempts: number;
}
/** Applied (or dropped for good): undefined; else when to look again, and why. */
export type ReceiptOutcome = { retryAt: Date; why: string } | undefined;

export async function applySmppReceipts(
  db: Db,
  items: ReceiptToApply[],
  ctx: { log: Logger; handoff: JobHandoff | undefined },
): Promise<ReceiptOutcome[]> {
  const outcomes: ReceiptOutcome[] = items.map(() => undefined);
  // One receipt per segment id is recorded (two for one id in a batch: a duplicate, or a carrier's
  // intermediate then final one): the first final one, else the last.
  const chosen = new Map<string, number>();
  items.forEach((item, i) => {
    const before = chosen.get(item.payload.segmentId);
    if (before === undefined || !outcomeOf(items[before]!.payload.stat)) chosen.set(item.payload.segmentId, i);
  });
  const receipts: SegmentReceipt[] = [...chosen.values()].map((i) => {
    const { segmentId, stat, err, exactId } = items[i]!.payload;
    const keys = carrierIdCandidates(segmentId);
    return { segmentId, stat, err, keys: exactId ? keys.slice(0, 1) : keys };
  });
  const segments = await recordSegmentReceipts(db, receipts);
  const byMessage = new Map<string, SegmentRow[]>();
  for (const s of segments) byMessage.set(s.messageId, [...(byMessage.get(s.messageId) ?? []), s]);
  // By the receipt's own id, which may be written otherwise than the segment's (messageIdFormat "auto").
  const segmentMessage = new Map(segments.filter((s) => s.receiptId !== null).map((s) => [s.receiptId!, s.messageId]));

  const unknown = items.flatMap((item, i) => (segmentMessage.has(item.payload.segmentId) ? [] : [i]));
  for (const i of unknown) outcomes[i] = await unmatched(db, items[i]!, ctx.log);

  // Messages whose segments now give a final status, and the receipt that tells each (its time).
  const finals = new Map<string, { status: StatusChange["status"]; error: StatusChange["error"]; item: number }>();
  for (const [i, item] of items.entries()) {
    const messageId = segmentMessage.get(item.payload.segmentId);
    if (!messageId || finals.has(messageId)) continue;
    const final = finalStatus(byMessage.get(messageId)!);
    if (final) finals.set(messageId, { ...final, item: i });
  }
  if (finals.size === 0) return outcomes;
  const messages = new Map((await findMessages(db, { carrierLookups: [...finals.keys()] })).map((m) => [m.id, m]));
  const changes: { message: MessageFacts; change: StatusChange }[] = [];
  for (const [messageId, final] of finals) {
    const r = items[final.item]!;
    const message = messages.get(messageId);
    const providerMessageId = byMessage.get(messageId)![0]!.providerMessageId;
    if (message) await settleDeclaredUnknown(db, message, providerMessageId, r.payload);
    // By the segment's message, not by provider id: another message may carry the same id (SMSCs reuse them).
    if (message?.providerMessageId !== providerMessageId) {
      outcomes[final.item] = retryOrDrop(r, `message of ${providerMessageId} not recorded as sent yet`, ctx.log);
      continue;
    }
    if (!canTransition(message.status, final.status)) continue; // a late or duplicate receipt
    changes.push({ message, change: { status: final.status, at: new Date(r.payload.at), error: final.error } });
  }
  const changed = await changeMessageStatuses(db, changes, { handoff: ctx.handoff });
  const at = new Map(changes.map((c) => [c.message.id, c.change.at]));
  for (const m of changed) {
    const sentAt = messages.get(m.id)?.sentAt;
    if (sentAt) receiptLag.observe((at.get(m.id)!.getTime() - sentAt.getTime()) / 1000);
  }
  return outcomes;
}

/** The status a message's segments give it, once final: every one delivered, or the first that failed for good. */
function finalStatus(segments: SegmentRow[]): { status: StatusChange["status"]; error: StatusChange["error"] } | undefined {
  const outcomes = segments.map((s) => (s.stat ? outcomeOf(s.stat) : undefined));
  const failedAt = outcomes.findIndex((o) => o === "undelivered" || o === "failed");
  if (failedAt >= 0) {
    const failed = segments[failedAt]!;
    return { status: outcomes[failedAt]!, error: receiptError(failed.stat!, failed.err, `Segment ${failed.seq} of ${failed.total}: `) };
  }
  return outcomes.every((o) => o === "delivered") ? { status: "delivered", error: null } : undefined;
}

/**
 * The submit's answer was recorded (its segments) but not the message's status: the worker died between the
 * two. Its outcome was declared unknown; the receipt says it was sent (and the caller applies what became of it).
 */
async function settleDeclaredUnknown(db: Db, message: OwnedMessageRow, providerMessageId: string, r: ReceiptPayload): Promise<void> {
  if (message.status !== "sending" || !message.outcomeUnknownAt) return;
  await changeMessageStatus(db, message, { status: "sent", at: message.submittedAt ?? new Date(r.at), providerMessageId });
  message.providerMessageId = providerMessageId;
  message.status = "sent";
}

/**
 * An id no submit_sm_resp recorded: after a few looks, the answer was lost (a crash or a dropped link while the
 * message was on the wire). A final receipt is kept to resolve that unknown outcome.
 */
async function unmatched(db: Db, item: ReceiptToApply, log: Logger): Promise<ReceiptOutcome> {
  const r = item.payload;
  const outcome = outcomeOf(r.stat);
  if (item.attempt < LOOKUPS_BEFORE_UNMATCHED || !outcome || !r.link || !r.destination)
    return retryOrDrop(item, `unknown SMPP message id ${r.segmentId}`, log);
  log.info({ segmentId: r.segmentId }, "SMPP receipt for an unknown id kept to resolve an unknown outcome");
  await keepUnmatchedReceipt(db, {
    link: r.link,
    providerMessageId: r.segmentId,
    status: outcome,
    error: outcome === "delivered" ? null : receiptError(r.stat, r.err),
    at: new Date(r.at),
    destination: r.destination,
    submittedMinute: r.submittedMinute ? new Date(r.submittedMinute) : null,
    textPrefix: r.text ?? null,
    job: { kind: "smpp_receipt", payload: r },
  });
  return undefined;
}

/** A receipt can overtake the recording of the submit_sm_resp: it waits for it, a bounded number of times. */
function retryOrDrop(item: ReceiptToApply, why: string, log: Logger): ReceiptOutcome {
  if (item.attempt < item.maxAttempts) return { retryAt: new Date(Date.now() + 250 * Math.max(1, item.attempt)), why };
  log.warn({ segmentId: item.payload.segmentId }, `SMPP receipt dropped: ${why}`);
  return undefined;
}
