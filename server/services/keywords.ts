// What an inbound keyword does, inside the transaction that stores the inbound message: opt-out puts the sender
// on the account's list, opt-in takes an opted-out sender off it, help does nothing to the list; each answers
// with the account's reply text from the number that received the keyword. Replies bypass the list, and are
// guarded against SMS pumping: none for a keyword that changes nothing (STOP from a number already opted out,
// START from one that is not), none to a premium-rate or shared-cost number, at most one of a kind per number a
// minute (HELP: a day), five per number a day and AUTO_REPLY_MAX_PER_HOUR per account (db/autoReplies.ts).
import { uuidv7 } from "../domain/uuidv7.js";
import type { Knex } from "knex";
import { getAccountSettings } from "../db/accountSettings.js";
import { claimAutoReply } from "../db/autoReplies.js";
import { insertAutoReply } from "../db/messages/index.js";
import { deleteOptOut, insertOptOut } from "../db/optOuts.js";
import { insertEventDeliveries } from "../db/webhookDeliveries.js";
import { contactOptBody, EVENT_SEQ } from "../domain/events.js";
import type { Keyword, KeywordKind } from "../domain/keywords.js";
import { isPremiumOrSharedCost, toE164 } from "../domain/phone.js";
import { segmentInfo } from "../../common/segments.js";

const REPLY_SETTING: Record<KeywordKind, "optOutReply" | "optInReply" | "helpReply"> = {
  opt_out: "optOutReply",
  opt_in: "optInReply",
  help: "helpReply",
};

/** The deployment's limits on automatic replies. */
export interface AutoReplyPolicy {
  /** AUTO_REPLY_MAX_PER_HOUR: replies one account may send in an hour. */
  autoReplyMaxPerHour: number;
}

export interface KeywordMessage {
  accountId: string;
  messageId: string;
  /** The person. */
  from: string;
  /** The account's number that received it; the reply comes from it. */
  to: string;
  at: Date;
}

export async function applyKeyword(
  tx: Knex.Transaction,
  message: KeywordMessage,
  keyword: Keyword,
  policy: AutoReplyPolicy,
): Promise<void> {
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
    // From a number already opted out, an opt-out keyword changes nothing and sends nothing.
    if (!created) return;
    await listChanged("contact.opted_out");
  } else if (keyword.kind === "opt_in") {
    const removed = await deleteOptOut(tx, message.accountId, phone);
    // From a number that is not opted out, an opt-in keyword changes nothing and sends nothing.
    if (!removed) return;
    await listChanged("contact.opted_in");
  }
  await sendAutoReply(tx, message, phone, keyword.kind, policy);
}

async function sendAutoReply(
  tx: Knex.Transaction,
  message: KeywordMessage,
  phone: string,
  kind: KeywordKind,
  policy: AutoReplyPolicy,
): Promise<void> {
  if (isPremiumOrSharedCost(phone)) return;
  const text = (await getAccountSettings(tx, message.accountId))[REPLY_SETTING[kind]];
  if (text === null) return;
  if (!(await claimAutoReply(tx, message.accountId, phone, kind, policy.autoReplyMaxPerHour))) return;
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
