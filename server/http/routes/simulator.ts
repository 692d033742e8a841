import { findNumberOwner } from "../../db/numbers.js";
import { DomainError } from "../../domain/errors.js";
import { requirePhone } from "../../domain/phone.js";
import { carriersReachable } from "../../routing/index.js";
import { receiveInboundMessage } from "../../services/inbound.js";
import type { Handlers } from "../types.js";

const numberNotFound = () =>
  new DomainError("number_not_found", "`to` is not a number of this account; register it with POST /api/v1/numbers.", {
    errors: [{ path: "/body/to", message: "not a number of this account" }],
  });

export const simulatorHandlers: Pick<Handlers, "Simulator_inbound"> = {
  async Simulator_inbound({ db, log, account, body, config, now }) {
    // The deployment's connectors, not this process's setting: while anything leads to a carrier (an enabled
    // carrier connector, or one a route names) a forged HELP or STOP would make a real SMSC send.
    const carriers = await carriersReachable(db);
    if (carriers.length > 0)
      throw new DomainError(
        "simulator_unavailable",
        `The simulator takes no inbound messages while a connector leads to a carrier (${carriers.join(", ")}: enabled, or named by a route, even while down), so that a forged STOP or HELP never makes a real SMSC send. Send a real message to the number instead.`,
      );
    const from = requirePhone(body.from, "/body/from");
    const to = requirePhone(body.to, "/body/to");
    if ((await findNumberOwner(db, to))?.accountId !== account.id) throw numberNotFound();
    // The same path an inbound message from a carrier takes.
    const received = await receiveInboundMessage(
      db,
      log,
      { from, to, body: body.body, receivedAt: now() },
      { autoReplyMaxPerHour: config.autoReplyMaxPerHour },
    );
    if (!received) throw numberNotFound(); // released in between
    return { status: 202, body: { messageId: received.messageId } };
  },
};
