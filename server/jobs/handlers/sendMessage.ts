// Sends scheduled messages at their time, a claimed batch at once.
//
// 1. Claim: scheduled → sending, committed before the provider call. Cancel is the same conditional UPDATE
//    on the same row, so exactly one wins; a cancelled message is never handed to the provider.
// 2. Submit to the provider.
// 3. Record the answers: sending → sent (with the provider's id) or → failed, with receipts, set-wise.
//
// If the worker dies between 2 and 3, the job is rescued and runs again, and finds the message in `sending`:
// whether the provider got it cannot be known, and sending it again could deliver it twice. The message
// becomes `failed` with error code `send_outcome_unknown` (and a dlr.failed receipt), an explicit answer
// instead of a silent double send or a guess.
import { markCampaignsSending } from "../../db/campaigns.js";
import type { Db } from "../../db/knex.js";
import { claimMessagesForSending, findMessages, returnToScheduled } from "../../db/messages.js";
import { failMessagesToOptedOut } from "../../services/optOuts.js";
import { changeMessageStatuses, type MessageFacts, type StatusChange } from "../../services/statusChanges.js";
import { ProviderUnavailable, submitAll, type Provider } from "../../providers/types.js";
import { Snooze, type BatchJobHandler } from "../types.js";

export const OUTCOME_UNKNOWN = {
  code: "send_outcome_unknown",
  message: "The worker stopped while the provider was being called; the message may or may not have been sent, so it was not sent again.",
};

export function sendMessageHandler(db: Db, provider: Provider): BatchJobHandler<"send_message"> {
  return {
    async batch(jobs, { log }) {
      const outcomes: (Error | undefined)[] = jobs.map(() => undefined);
      const jobIndex = new Map(jobs.map((j, i) => [j.payload.messageId, i]));
      const ids = [...jobIndex.keys()];
      await failMessagesToOptedOut(db, ids);
      const claimed = await claimMessagesForSending(db, ids);
      const changes: { message: MessageFacts; change: StatusChange }[] = [];

      // Not claimed: cancelled, already handled, or left in `sending` by a worker that died mid-call.
      const claimedIds = new Set(claimed.map((m) => m.id));
      const unclaimed = ids.filter((id) => !claimedIds.has(id));
      if (unclaimed.length > 0) {
        for (const m of (await findMessages(db, { ids: unclaimed })).filter((x) => x.status === "sending")) {
          log.warn({ messageId: m.id }, "message found in sending after a crash; marking failed (outcome unknown)");
          changes.push({ message: m, change: { status: "failed", at: new Date(), error: OUTCOME_UNKNOWN } });
        }
      }
      await markCampaignsSending(db, [...new Set(claimed.map((m) => m.campaignId).filter((c): c is string => c !== null))]);

      const results = await submitAll(
        provider,
        claimed.map((m) => ({ messageId: m.id, to: m.to, from: m.from, body: m.body, encoding: m.encoding, segments: m.segments })),
      );
      const at = new Date();
      const notTaken: string[] = [];
      results.forEach((result, i) => {
        const message = claimed[i]!;
        if (result instanceof ProviderUnavailable) {
          // Certainly not handed over: back to scheduled (cancellable again) and retried shortly.
          notTaken.push(message.id);
          outcomes[jobIndex.get(message.id)!] = new Snooze(new Date(Date.now() + result.retryAfterMs), result.message);
        } else if (result instanceof Error) {
          log.error({ err: result, messageId: message.id }, "provider call failed with an unknown outcome");
          changes.push({ message, change: { status: "failed", at, error: OUTCOME_UNKNOWN } });
        } else if (result.accepted) {
          changes.push({ message, change: { status: "sent", at, providerMessageId: result.providerMessageId } });
        } else {
          changes.push({ message, change: { status: "failed", at, error: { code: result.code, message: result.message } } });
        }
      });
      if (notTaken.length > 0) await returnToScheduled(db, notTaken);
      await changeMessageStatuses(db, changes);
      return outcomes;
    },
  };
}
