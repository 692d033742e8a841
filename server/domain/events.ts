// The bodies of the events besides receipts, serialised once: these exact bytes are stored in the outbox,
// signed and sent (as receipts are, domain/receiptPayload.ts).
import type { components } from "../../generated/api.js";

type Schemas = components["schemas"];

/** Outbox order within one inbound message: its message.received goes before the list change it caused. */
export const EVENT_SEQ = { "message.received": 1, "contact.opted_out": 2, "contact.opted_in": 2 } as const;

export function messageReceivedBody(m: {
  messageId: string;
  from: string;
  to: string;
  body: string;
  segments: number;
  encoding: Schemas["MessageEncoding"];
  receivedAt: Date;
  incomplete: boolean;
}): string {
  const event: Schemas["MessageReceivedEvent"] = {
    event: "message.received",
    timestamp: m.receivedAt.toISOString(),
    messageId: m.messageId,
    from: m.from,
    to: m.to,
    body: m.body,
    segments: m.segments,
    encoding: m.encoding,
    receivedAt: m.receivedAt.toISOString(),
    incomplete: m.incomplete,
  };
  return JSON.stringify(event);
}

export function contactOptBody(e: {
  event: "contact.opted_out" | "contact.opted_in";
  at: Date;
  phone: string;
  source: "keyword" | "api";
  keyword: string | null;
  messageId: string | null;
}): string {
  const event: Schemas["ContactOptEvent"] = {
    event: e.event,
    timestamp: e.at.toISOString(),
    phone: e.phone,
    source: e.source,
    keyword: e.keyword,
    messageId: e.messageId,
  };
  return JSON.stringify(event);
}

export function quotaWarningBody(e: { at: Date; day: string; segmentsAccepted: number; dailySegmentQuota: number }): string {
  const event: Schemas["QuotaWarningEvent"] = {
    event: "account.quota_warning",
    timestamp: e.at.toISOString(),
    day: e.day,
    segmentsAccepted: e.segmentsAccepted,
    dailySegmentQuota: e.dailySegmentQuota,
  };
  return JSON.stringify(event);
}

export function balanceLowBody(e: { at: Date; balance: number; threshold: number; currency: string }): string {
  const event: Schemas["BalanceLowEvent"] = {
    event: "account.balance_low",
    timestamp: e.at.toISOString(),
    balance: e.balance,
    lowBalanceThreshold: e.threshold,
    currency: e.currency,
  };
  return JSON.stringify(event);
}
