// SMPP receipts that had to wait (providers/smpp/applyReceipts.ts): one that overtook the recording of its
// submit_sm_resp, one kept to resolve an unknown outcome, or a batch the connection could not apply at once.
// Each is stored as a job before its deliver_sm was acknowledged and applied here a claimed batch at a time.
import { applySmppReceipts } from "../../providers/smpp/applyReceipts.js";
import type { Db } from "../../db/knex.js";
import { RetryLater, type BatchJobHandler } from "../types.js";

export function smppReceiptHandler(db: Db): BatchJobHandler<"smpp_receipt"> {
  return {
    async batch(jobs, ctx) {
      const outcomes = await applySmppReceipts(
        db,
        jobs.map((job) => ({ payload: job.payload, attempt: job.attempt, maxAttempts: job.maxAttempts })),
        { log: ctx.log, handoff: ctx.handoff("receipts") },
      );
      return outcomes.map((o) => o && new RetryLater(o.retryAt, o.why));
    },
  };
}
