// An SMPP delivery receipt, stored as a job by the connection before the deliver_sm was acknowledged.
// A multipart message gets ONE final status: delivered when every segment is delivered; the first segment
// that fails for good decides undelivered or failed. It goes through the same status path as the simulator.
import type { Db } from "../../db/knex.js";
import { findMessage } from "../../db/messages/index.js";
import { recordSegmentReceipt } from "../../db/smppSegments.js";
import { changeMessageStatus } from "../../services/statusChanges.js";
import { keepUnmatchedReceipt, LOOKUPS_BEFORE_UNMATCHED } from "../../services/unknownOutcomes.js";
import { receiptLag } from "../../providers/smpp/metrics.js";
import { outcomeOf, receiptError } from "../../providers/smpp/receipts.js";
import { RetryLater, type JobHandler } from "../types.js";

export function smppReceiptHandler(db: Db): JobHandler<"smpp_receipt"> {
  return async (job, { log }) => {
    const r = job.payload;
    const retry = (why: string) => {
      // A receipt can overtake the recording of the submit_sm_resp: wait for it, a bounded number of times.
      if (job.attempt < job.maxAttempts) throw new RetryLater(new Date(Date.now() + 250 * job.attempt), why);
      log.warn({ segmentId: r.segmentId }, `SMPP receipt dropped: ${why}`);
    };
    const segments = await recordSegmentReceipt(db, r.segmentId, r.stat, r.err);
    if (!segments) {
      // An id no submit_sm_resp recorded: after a few looks, the answer was lost (a crash or a dropped link while
      // the message was on the wire). A final receipt is kept to resolve that unknown outcome.
      const outcome = outcomeOf(r.stat);
      if (job.attempt < LOOKUPS_BEFORE_UNMATCHED || !outcome || !r.link || !r.destination)
        return retry(`unknown SMPP message id ${r.segmentId}`);
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
      return;
    }
    const outcomes = segments.map((s) => (s.stat ? outcomeOf(s.stat) : undefined));
    const failedAt = outcomes.findIndex((o) => o === "undelivered" || o === "failed");
    const status = failedAt >= 0 ? outcomes[failedAt]! : outcomes.every((o) => o === "delivered") ? "delivered" : undefined;
    if (!status) return; // more segments to hear from, or an intermediate state
    const failed = failedAt >= 0 ? segments[failedAt]! : undefined;
    const error = failed ? receiptError(failed.stat!, failed.err, `Segment ${failed.seq} of ${failed.total}: `) : null;
    // By the segment's message, not by provider id: another message may carry the same id (SMSCs reuse them).
    const { messageId, providerMessageId } = segments[0]!;
    const message = await findMessage(db, { carrierLookup: messageId });
    if (message?.status === "sending" && message.outcomeUnknownAt) {
      // The submit's answer was recorded (its segments) but not the message's status: the worker died between
      // the two. Its outcome was declared unknown; the receipt says it was sent, and what became of it.
      await changeMessageStatus(db, message, { status: "sent", at: message.submittedAt ?? new Date(r.at), providerMessageId });
      message.providerMessageId = providerMessageId;
    }
    if (message?.providerMessageId !== providerMessageId) return retry(`message of ${providerMessageId} not recorded as sent yet`);
    const changed = await changeMessageStatus(db, message, { status, at: new Date(r.at), error });
    if (changed && message.sentAt) receiptLag.observe((new Date(r.at).getTime() - message.sentAt.getTime()) / 1000);
  };
}
