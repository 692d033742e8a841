import { randomUUID } from "node:crypto";
import type { Knex } from "knex";
import { cancelPendingJob } from "../../db/jobs/index.js";
import { scheduleMessage } from "../../db/scheduleMessage.js";
import { cancelScheduledMessage, getMessage } from "../../db/messages.js";
import { ApiError, notFound } from "../../domain/errors.js";
import { requirePhone, requireSender } from "../../domain/phone.js";
import { checkScheduledAt } from "../../domain/schedule.js";
import { segmentInfo } from "../../domain/segments.js";
import { withIdempotency } from "../idempotency.js";
import { iso } from "../serialize.js";
import type { Handlers } from "../types.js";

export const schedulerHandlers: Pick<Handlers, "Scheduler_schedule" | "Scheduler_cancel"> = {
  async Scheduler_schedule({ db, account, body, headers, now }) {
    const schedule = async (conn: Knex) => {
      const to = requirePhone(body.to, "/body/to");
      const from = requireSender(body.from, "/body/from");
      const scheduledAt = new Date(body.scheduledAt);
      checkScheduledAt(scheduledAt, now());
      const id = randomUUID();
      const jobId = randomUUID();
      await scheduleMessage(conn, account.id, {
        id, jobId, to, from, body: body.body, scheduledAt, ...segmentInfo(body.body),
      });
      return { status: 201 as const, body: { messageId: id, jobId, scheduledAt: iso(scheduledAt), status: "scheduled" as const } };
    };
    // Without an Idempotency-Key the one statement needs no transaction around it.
    const key = headers["Idempotency-Key"];
    return key === undefined ? schedule(db) : withIdempotency(db, account.id, key, body, schedule);
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
