// Scheduling and cancelling a message: the rules (domain/) applied to what is stored (db/).
import { uuidv7 } from "../domain/uuidv7.js";
import type { Knex } from "knex";
import { cancelPendingJob } from "../db/jobs/index.js";
import { cancelScheduledMessage, getMessage, insertScheduledMessage } from "../db/messages/index.js";
import { deleteThrottledSends } from "../db/throttledSends.js";
import type { Account } from "../db/accounts.js";
import { DomainError, notFound } from "../domain/errors.js";
import { requireSender } from "../domain/phone.js";
import { NOT_HELD, requireAllowedDestination, requireAllowedSenderId, senderNotAllowed } from "../domain/sendingGuards.js";
import { chargeQuota, countsQuota } from "./quota.js";
import { checkScheduledAt } from "../domain/schedule.js";
import { validUntil } from "../domain/validity.js";
import type { Category, Priority } from "../domain/sendingPolicy.js";
import { segmentInfo } from "../../common/segments.js";

export interface ScheduleRequest {
  to: string;
  from: string;
  body: string;
  scheduledAt: string;
  /** Seconds after scheduledAt by which it must be handed to the provider. */
  validityPeriod?: number;
  category?: Category;
  priority?: Priority;
}

/**
 * Checks and stores a message with its send job (one statement; in a transaction with the quota's count when
 * the account has a quota); `now` is the time of the request. The operator's guards apply: the destination,
 * the sender (a number the account holds, an ID of its list), the daily quota.
 */
export async function scheduleMessage(
  conn: Knex,
  account: Account,
  request: ScheduleRequest,
  now: Date,
  opts: { test: boolean },
): Promise<{ messageId: string; jobId: string; scheduledAt: Date }> {
  const to = requireAllowedDestination(request.to, account.limits, "/body/to");
  const from = requireSender(request.from, "/body/from");
  requireAllowedSenderId(from, account.limits, "/body/from");
  const scheduledAt = new Date(request.scheduledAt);
  checkScheduledAt(scheduledAt, now);
  const id = uuidv7();
  const jobId = uuidv7();
  const segments = segmentInfo(request.body);
  const store = async (db: Knex) => {
    await chargeQuota(db, account, segments.segments, opts);
    const outcome = await insertScheduledMessage(db, account.id, {
      id,
      jobId,
      to,
      from,
      body: request.body,
      scheduledAt,
      validUntil: validUntil(scheduledAt, request.validityPeriod),
      category: request.category,
      priority: request.priority,
      test: opts.test,
      ...segments,
    });
    if (outcome === "sender_not_held") throw senderNotAllowed(from, "/body/from", NOT_HELD);
    if (outcome === "opted_out") {
      throw new DomainError("recipient_opted_out", `${to} is on this account's opt-out list; nothing was scheduled.`, {
        errors: [{ path: "/body/to", message: "opted out" }],
      });
    }
  };
  // A refusal after the quota's count rolls it back with the transaction.
  if (countsQuota(account, opts.test) && !conn.isTransaction) await conn.transaction(store);
  else await store(conn);
  return { messageId: id, jobId, scheduledAt };
}

/**
 * scheduled → cancelled, with its job. Repeatable: an already cancelled message gives the same answer. Once
 * sending has begun it is a 409 (the send claim and the cancel are the same conditional UPDATE; one wins).
 */
export async function cancelMessage(db: Knex, accountId: string, messageId: string): Promise<{ cancelledAt: Date }> {
  return db.transaction(async (tx) => {
    const cancelled = await cancelScheduledMessage(tx, accountId, messageId);
    if (cancelled) {
      await cancelPendingJob(tx, accountId, cancelled.jobId);
      // Out of the throughput queue if it was waiting there (after the job: the pacer's lock order).
      await deleteThrottledSends(tx, [{ id: messageId, accountId }]);
      return { cancelledAt: cancelled.cancelledAt };
    }
    const message = await getMessage(tx, accountId, messageId);
    if (!message) throw notFound("Message");
    if (message.status === "cancelled" && message.cancelledAt) return { cancelledAt: message.cancelledAt };
    throw new DomainError(
      "not_cancellable",
      `The message can no longer be cancelled: sending has begun (status ${message.status === "sending" ? "scheduled, sending" : message.status}).`,
    );
  });
}
