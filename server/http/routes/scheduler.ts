import type { Knex } from "knex";
import { cancelMessage, scheduleMessage } from "../../services/messages.js";
import { withIdempotency } from "../idempotency.js";
import { iso } from "../serialize.js";
import type { Handlers } from "../types.js";
import { deploymentDestinations } from "../../config.js";

export const schedulerHandlers: Pick<Handlers, "Scheduler_schedule" | "Scheduler_cancel"> = {
  async Scheduler_schedule({ db, config, account, key: apiKey, body, headers, now }) {
    const schedule = async (conn: Knex) => {
      const { messageId, jobId, scheduledAt } = await scheduleMessage(conn, account, body, now(), {
        test: apiKey.test,
        destinations: deploymentDestinations(config),
      });
      return { status: 201 as const, body: { messageId, jobId, scheduledAt: iso(scheduledAt), status: "scheduled" as const } };
    };
    // Without an Idempotency-Key the one statement needs no transaction around it.
    const key = headers["Idempotency-Key"];
    return key === undefined ? schedule(db) : withIdempotency(db, account.id, key, body, schedule);
  },

  async Scheduler_cancel({ db, account, key, path }) {
    const { cancelledAt } = await cancelMessage(db, account.id, path.messageId, { testKey: key.test });
    return { status: 200, body: { messageId: path.messageId, status: "cancelled", cancelledAt: iso(cancelledAt) } };
  },
};
