// What an inbound keyword does, inside the transaction that stores the inbound message: opt-out puts the sender
// on the account's list, opt-in takes an opted-out sender off it, help does nothing to the list; each answers
// with the account's reply text from the number that received the keyword. Replies bypass the list and go out
// at most once per kind, number and minute, so two auto-responders cannot loop.
import { uuidv7 } from "../domain/uuidv7.js";
import type { Knex } from "knex";
import { getAccountSettings } from "../db/accountSettings.js";
import { claimAutoReply } from "../db/autoReplies.js";
import { insertAutoReply } from "../db/messages/index.js";
import { deleteOptOut, insertOptOut } from "../db/optOuts.js";
import { insertEventDeliveries } from "../db/webhookDeliveries.js";
import { contactOptBody, EVENT_SEQ } from "../domain/events.js";
import type { Keyword, KeywordKind } from "../domain/keywords.js";
import { toE164 } from "../domain/phone.js";
import { segmentInfo } from "../../common/segments.js";

const REPLY_SETTING: Record<KeywordKind, "optOutReply" | "optInReply" | "helpReply"> = {
  opt_out: "optOutReply",
  opt_in: "optInReply",
  help: "helpReply",
};

export interface KeywordMessage {
  accountId: string;
  messageId: string;
  /** The person. */
  from: string;
  /** The account's number that received it; the reply comes from it. */
  to: string;
  at: Date;
}

export async function applyKeyword(tx: Knex.Transaction, message: KeywordMessage, keyword: Keyword): Promise<void> {
  const phone = toE164(message.from);
  if (!phone) return; // an alphanumeric or short-code sender can neither be listed nor answered
  const listChanged = (event: "contact.opted_out" | "contact.opted_in") =>
    insertEventDeliveries(tx, message.accountId, {
      event,
      body: contactOptBody({ event, at: message.at, phone, source: "keyword", keyword: keyword.word, messageId: message.messageId }),
      messageId: message.messageId,
      seq: EVENT_SEQ[event],
    });
  if (keyword.kind === "opt_out") {
    const { created } = await insertOptOut(tx, message.accountId, {
      phone,
      source: "keyword",
      keyword: keyword.word,
      messageId: message.messageId,
    });
    if (created) await listChanged("contact.opted_out");
  } else if (keyword.kind === "opt_in") {
    const removed = await deleteOptOut(tx, message.accountId, phone);
    // From a number that is not opted out, an opt-in keyword changes nothing and sends nothing.
    if (!removed) return;
    await listChanged("contact.opted_in");
  }
  await sendAutoReply(tx, message, phone, keyword.kind);
}

async function sendAutoReply(tx: Knex.Transaction, message: KeywordMessage, phone: string, kind: KeywordKind): Promise<void> {
  const text = (await getAccountSettings(tx, message.accountId))[REPLY_SETTING[kind]];
  if (text === null) return;
  if (!(await claimAutoReply(tx, message.accountId, phone, kind))) return;
  await insertAutoReply(tx, message.accountId, {
    id: uuidv7(),
    jobId: uuidv7(),
    to: phone,
    from: message.to,
    body: text,
    scheduledAt: message.at,
    ...segmentInfo(text),
  });
}
