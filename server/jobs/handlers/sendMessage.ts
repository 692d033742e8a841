// Sends one scheduled message at its time.
//
// 1. Claim: scheduled → sending, committed before the provider call. Cancel is the same conditional UPDATE
//    on the same row, so exactly one wins; a cancelled message is never handed to the provider.
// 2. Submit to the provider.
// 3. Record the answer: sending → sent (with the provider's id) or → failed, with receipts, in one transaction.
//
// If the worker dies between 2 and 3, the job is rescued and runs again, and finds the message in `sending`:
// whether the provider got it cannot be known, and sending it again could deliver it twice. The message
// becomes `failed` with error code `send_outcome_unknown` (and a dlr.failed receipt), an explicit answer
// instead of a silent double send or a guess.
import { markCampaignSending } from "../../db/campaigns.js";
import type { Db } from "../../db/knex.js";
import { claimMessageForSending, findMessage, returnToScheduled } from "../../db/messages.js";
import { changeMessageStatus } from "../../domain/statusChanges.js";
import { ProviderUnavailable, type Provider } from "../../providers/types.js";
import { Snooze, type JobHandler } from "../types.js";

export const SEND_MESSAGE_JOB = "send_message";
/** Room for retries after a database outage or a rescued crash; the handler is safe to re-run. */
export const SEND_JOB_MAX_ATTEMPTS = 10;

export const OUTCOME_UNKNOWN = {
  code: "send_outcome_unknown",
  message: "The worker stopped while the provider was being called; the message may or may not have been sent, so it was not sent again.",
};

export function sendMessageHandler(db: Db, provider: Provider): JobHandler {
  return async (job, { log }) => {
    const messageId = job.payload.messageId as string;
    const message = await claimMessageForSending(db, messageId);
    if (!message) {
      const current = await findMessage(db, { id: messageId });
      if (current?.status === "sending") {
        log.warn({ messageId }, "message found in sending after a crash; marking failed (outcome unknown)");
        await changeMessageStatus(db, { id: messageId }, { status: "failed", at: new Date(), error: OUTCOME_UNKNOWN });
      }
      return; // cancelled, already sent, or gone
    }
    if (message.campaignId) await markCampaignSending(db, message.campaignId);

    let result;
    try {
      result = await provider.submit({
        messageId: message.id,
        to: message.to,
        from: message.from,
        body: message.body,
        encoding: message.encoding,
        segments: message.segments,
      });
    } catch (error) {
      if (error instanceof ProviderUnavailable) {
        // Certainly not handed over: back to scheduled (cancellable again) and retried shortly.
        await returnToScheduled(db, messageId);
        throw new Snooze(new Date(Date.now() + error.retryAfterMs), error.message);
      }
      log.error({ err: error, messageId }, "provider call failed with an unknown outcome");
      await changeMessageStatus(db, message, { status: "failed", at: new Date(), error: OUTCOME_UNKNOWN });
      return;
    }
    const at = new Date();
    if (result.accepted) {
      await changeMessageStatus(db, message, { status: "sent", at, providerMessageId: result.providerMessageId });
    } else {
      await changeMessageStatus(db, message, { status: "failed", at, error: { code: result.code, message: result.message } });
    }
  };
}
