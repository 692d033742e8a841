// SMPP delivery receipts, stored as jobs by the connection before each deliver_sm was acknowledged, applied a
// claimed batch at a time: the segments' receipts recorded in one statement, their messages read in one, and
// the status changes made by the same set-wise statement the simulator's reports use (statusChanges.ts).
// A multipart message gets ONE final status: delivered when every segment is delivered; the first segment that
// fails for good decides undelivered or failed.
import type { Db } from "../../db/knex.js";
import { findMessages, type OwnedMessageRow } from "../../db/messages/index.js";
import { recordSegmentReceipts, type SegmentReceipt, type SegmentRow } from "../../db/smppSegments.js";
import { carrierIdCandidates } from "../../domain/carrierIds.js";
import { canTransition } from "../../domain/messageStatus.js";
import { changeMessageStatus, changeMessageStatuses, type MessageFacts, type StatusChange } from "../../services/statusChanges.js";
import { keepUnmatchedReceipt, LOOKUPS_BEFORE_UNMATCHED } from "../../services/unknownOutcomes.js";
import { receiptLag } from "../../providers/smpp/metrics.js";
import { outcomeOf, receiptError } from "../../providers/smpp/receipts.js";
import type { JobRow } from "../../db/jobs/index.js";
import { RetryLater, type BatchJobHandler, type JobContext } from "../types.js";

type ReceiptJob = JobRow<"smpp_receipt">;

export function smppReceiptHandler(db: Db): BatchJobHandler<"smpp_receipt"> {
  return {
    async batch(jobs, ctx) {
      const outcomes: (Error | undefined)[] = jobs.map(() => undefined);
      // One receipt per segment id is recorded (two for one id in a batch: a duplicate, or a carrier's
      // intermediate then final one): the first final one, else the last.
      const chosen = new Map<string, number>();
      jobs.forEach((job, i) => {
        const before = chosen.get(job.payload.segmentId);
        if (before === undefined || !outcomeOf(jobs[before]!.payload.stat)) chosen.set(job.payload.segmentId, i);
      });
      const receipts: SegmentReceipt[] = [...chosen.values()].map((i) => {
        const { segmentId, stat, err, exactId } = jobs[i]!.payload;
        const keys = carrierIdCandidates(segmentId);
        return { segmentId, stat, err, keys: exactId ? keys.slice(0, 1) : keys };
      });
      const segments = await recordSegmentReceipts(db, receipts);
      const byMessage = new Map<string, SegmentRow[]>();
      for (const s of segments) byMessage.set(s.messageId, [...(byMessage.get(s.messageId) ?? []), s]);
      // By the receipt's own id, which may be written otherwise than the segment's (messageIdFormat "auto").
      const segmentMessage = new Map(segments.filter((s) => s.receiptId !== null).map((s) => [s.receiptId!, s.messageId]));

      const unknown = jobs.flatMap((job, i) => (segmentMessage.has(job.payload.segmentId) ? [] : [i]));
      for (const i of unknown) outcomes[i] = await unmatched(db, jobs[i]!, ctx);

      // Messages whose segments now give a final status, and the job that tells each (its receipt's time).
      const finals = new Map<string, { status: StatusChange["status"]; error: StatusChange["error"]; job: number }>();
      for (const [i, job] of jobs.entries()) {
        const messageId = segmentMessage.get(job.payload.segmentId);
        if (!messageId || finals.has(messageId)) continue;
        const final = finalStatus(byMessage.get(messageId)!);
        if (final) finals.set(messageId, { ...final, job: i });
      }
      if (finals.size === 0) return outcomes;
      const messages = new Map((await findMessages(db, { carrierLookups: [...finals.keys()] })).map((m) => [m.id, m]));
      const changes: { message: MessageFacts; change: StatusChange }[] = [];
      for (const [messageId, final] of finals) {
        const r = jobs[final.job]!;
        const message = messages.get(messageId);
        const providerMessageId = byMessage.get(messageId)![0]!.providerMessageId;
        if (message) await settleDeclaredUnknown(db, message, providerMessageId, r);
        // By the segment's message, not by provider id: another message may carry the same id (SMSCs reuse them).
        if (message?.providerMessageId !== providerMessageId) {
          outcomes[final.job] = retryOrDrop(r, `message of ${providerMessageId} not recorded as sent yet`, ctx);
          continue;
        }
        if (!canTransition(message.status, final.status)) continue; // a late or duplicate receipt
        changes.push({ message, change: { status: final.status, at: new Date(r.payload.at), error: final.error } });
      }
      const changed = await changeMessageStatuses(db, changes, { handoff: ctx.handoff("receipts") });
      const at = new Map(changes.map((c) => [c.message.id, c.change.at]));
      for (const m of changed) {
        const sentAt = messages.get(m.id)?.sentAt;
        if (sentAt) receiptLag.observe((at.get(m.id)!.getTime() - sentAt.getTime()) / 1000);
      }
      return outcomes;
    },
  };
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
async function settleDeclaredUnknown(db: Db, message: OwnedMessageRow, providerMessageId: string, r: ReceiptJob): Promise<void> {
  if (message.status !== "sending" || !message.outcomeUnknownAt) return;
  await changeMessageStatus(db, message, { status: "sent", at: message.submittedAt ?? new Date(r.payload.at), providerMessageId });
  message.providerMessageId = providerMessageId;
  message.status = "sent";
}

/**
 * An id no submit_sm_resp recorded: after a few looks, the answer was lost (a crash or a dropped link while the
 * message was on the wire). A final receipt is kept to resolve that unknown outcome.
 */
async function unmatched(db: Db, job: ReceiptJob, ctx: JobContext): Promise<Error | undefined> {
  const r = job.payload;
  const outcome = outcomeOf(r.stat);
  if (job.attempt < LOOKUPS_BEFORE_UNMATCHED || !outcome || !r.link || !r.destination)
    return retryOrDrop(job, `unknown SMPP message id ${r.segmentId}`, ctx);
  ctx.log.info({ segmentId: r.segmentId }, "SMPP receipt for an unknown id kept to resolve an unknown outcome");
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
function retryOrDrop(job: ReceiptJob, why: string, ctx: JobContext): Error | undefined {
  if (job.attempt < job.maxAttempts) return new RetryLater(new Date(Date.now() + 250 * job.attempt), why);
  ctx.log.warn({ segmentId: job.payload.segmentId }, `SMPP receipt dropped: ${why}`);
  return undefined;
}
