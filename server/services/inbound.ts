// The one way an inbound message enters the service, whatever carried it: the simulator's endpoint calls it
// today, the SMPP provider calls it with a reassembled deliver_sm. It routes the message to the account that
// owns the destination number and stores it in one transaction with what it causes (keyword handling,
// events), so a caller that acknowledges to its carrier after this returns has the message durably stored.
import { uuidv7 } from "../domain/uuidv7.js";
import { processCounter } from "../processMetrics.js";
import type { Db } from "../db/knex.js";
import { insertInboundMessage } from "../db/messages/index.js";
import { recordInbound } from "../db/conversations.js";
import { insertEventDeliveries } from "../db/webhookDeliveries.js";
import { EVENT_SEQ, messageReceivedBody } from "../domain/events.js";
import { findNumberOwner } from "../db/numbers.js";
import { insertUnroutedMessage } from "../operator/index.js";
import { matchKeyword } from "../domain/keywords.js";
import { toE164 } from "../domain/phone.js";
import { segmentInfo, type Encoding } from "../../common/segments.js";
import { maskPhones, type Logger } from "../logger.js";
import { applyKeyword, type AutoReplyPolicy } from "./keywords.js";

export interface ReceivedMessage {
  /** The person's number (or whatever sender the carrier gave). */
  from: string;
  /** The destination number, E.164. */
  to: string;
  body: string;
  receivedAt: Date;
  /** What the carrier says; computed from the body when absent. */
  segments?: number;
  encoding?: Encoding;
  /** Parts of a long message were still missing when it was given up on. */
  incomplete?: boolean;
}

const UNROUTED = "sms_inbound_unrouted_total";
const unrouted = processCounter({ name: UNROUTED, help: "Inbound messages to a number no account holds (kept for the operator)" });

const UNLISTED = "sms_inbound_keywords_unlisted_total";
const unlisted = processCounter({
  name: UNLISTED,
  help: "Inbound keywords (STOP, START, HELP) from a sender in national format, which no opt-out list can hold: set the connector's defaultCountry",
  labelNames: ["kind"],
});

/**
 * Stores an inbound message for the owner of its `to` number; returns its id, or undefined when no account holds
 * the number: then it is kept for the operator (GET /api/v1/unrouted-messages), logged without its body and
 * counted, never dropped; the caller acknowledges it either way once this returns.
 */
export async function receiveInboundMessage(
  db: Db,
  log: Logger,
  message: ReceivedMessage,
  policy: AutoReplyPolicy,
): Promise<{ messageId: string; accountId: string } | undefined> {
  const owner = await findNumberOwner(db, message.to);
  const info = segmentInfo(message.body);
  const messageId = uuidv7();
  const stored = {
    messageId,
    from: message.from,
    to: message.to,
    body: message.body,
    segments: message.segments ?? info.segments,
    encoding: message.encoding ?? info.encoding,
    receivedAt: message.receivedAt,
    incomplete: message.incomplete ?? false,
  };
  if (!owner) {
    await insertUnroutedMessage(db, { ...stored, id: messageId });
    unrouted.inc();
    log.warn(
      // The sender is a person: masked (the full number is in the stored row, for the operator).
      { to: message.to, from: maskPhones(message.from), unroutedMessageId: messageId },
      "inbound message to a number no account holds: kept for the operator",
    );
    return undefined;
  }
  await db.transaction(async (tx) => {
    await insertInboundMessage(tx, owner.accountId, { ...stored, id: messageId });
    await recordInbound(tx, owner.accountId, { id: messageId, from: message.from, body: message.body, receivedAt: message.receivedAt });
    await insertEventDeliveries(tx, owner.accountId, {
      event: "message.received",
      body: messageReceivedBody(stored),
      messageId,
      seq: EVENT_SEQ["message.received"],
    });
    const keyword = matchKeyword(message.body);
    if (keyword && !toE164(message.from) && /^\d{3,17}$/.test(message.from)) {
      // Digits the link did not make E.164 (a national number on a connector without defaultCountry): the STOP
      // is stored, but it cannot be listed or answered. Silent no more: counted, and the operator told.
      unlisted.inc({ kind: keyword.kind });
      log.warn(
        { from: maskPhones(message.from), to: message.to, keyword: keyword.word, messageId },
        "an inbound keyword from a national-format number could not be applied: set SMPP_DEFAULT_COUNTRY or the connector's defaultCountry",
      );
    }
    if (keyword) {
      await applyKeyword(
        tx,
        { accountId: owner.accountId, messageId, from: message.from, to: message.to, at: message.receivedAt },
        keyword,
        policy,
      );
    }
  });
  log.info({ messageId, accountId: owner.accountId }, "inbound message stored");
  return { messageId, accountId: owner.accountId };
}
