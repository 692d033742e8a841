import { randomUUID } from "node:crypto";
import { insertJobs, cancelPendingJob } from "../../db/jobs/index.js";
import { cancelScheduledMessage, getMessage, insertScheduledMessages } from "../../db/messages.js";
import { ApiError, notFound } from "../../domain/errors.js";
import { requirePhone, requireSender } from "../../domain/phone.js";
import { checkScheduledAt } from "../../domain/schedule.js";
import { segmentInfo } from "../../domain/segments.js";
import { withIdempotency } from "../idempotency.js";
import { iso } from "../serialize.js";
import type { Handlers } from "../types.js";

import { SEND_JOB_MAX_ATTEMPTS, SEND_MESSAGE_JOB } from "../../jobs/handlers/sendMessage.js";

export const schedulerHandlers: Pick<Handlers, "Scheduler_schedule" | "Scheduler_cancel"> = {
  async Scheduler_schedule({ db, account, body, headers, now }) {
    return withIdempotency(db, account.id, headers["Idempotency-Key"], body, async (tx) => {
      const to = requirePhone(body.to, "/body/to");
      const from = requireSender(body.from, "/body/from");
      const scheduledAt = new Date(body.scheduledAt);
      checkScheduledAt(scheduledAt, now());
      const id = randomUUID();
      const jobId = randomUUID();
      await insertJobs(tx, [{ id: jobId, kind: SEND_MESSAGE_JOB, payload: { messageId: id }, runAt: scheduledAt, maxAttempts: SEND_JOB_MAX_ATTEMPTS }]);
      await insertScheduledMessages(tx, account.id, [{ id, jobId, to, from, body: body.body, scheduledAt, ...segmentInfo(body.body) }]);
      return { status: 201 as const, body: { messageId: id, jobId, scheduledAt: iso(scheduledAt), status: "scheduled" as const } };
    });
  },

  async Scheduler_cancel({ db, account, path }) {
    return db.transaction(async (tx) => {
      const cancelled = await cancelScheduledMessage(tx, account.id, path.messageId);
      if (cancelled) {
        await cancelPendingJob(tx, cancelled.jobId);
        return { status: 200 as const, body: { messageId: path.messageId, status: "cancelled" as const, cancelledAt: iso(cancelled.cancelledAt) } };
      }
      const message = await getMessage(tx, account.id, path.messageId);
      if (!message) throw notFound("Message");
      if (message.status === "cancelled" && message.cancelledAt) {
        return { status: 200 as const, body: { messageId: message.id, status: "cancelled" as const, cancelledAt: iso(message.cancelledAt) } };
      }
      throw new ApiError(409, "not_cancellable", `The message can no longer be cancelled: sending has begun (status ${message.status === "sending" ? "scheduled, sending" : message.status}).`);
    });
  },
};
