// Database rows → API shapes of the contract (timestamps as RFC 3339 UTC with milliseconds).
import type { components } from "../../generated/api.js";
import type { CampaignRow } from "../db/campaigns.js";
import type { ContactRow } from "../db/contacts.js";
import type { ConversationRow } from "../db/conversations.js";
import type { GroupRow } from "../db/groups.js";
import type { OptOutRow } from "../db/optOuts.js";
import type { NumberRow } from "../db/numbers.js";
import type { MessageRow } from "../db/messages/index.js";
import { statusHistory } from "../domain/messageHistory.js";
import type { WebhookRow } from "../db/webhooks.js";
import { publicStatus } from "../domain/messageStatus.js";

type Schemas = components["schemas"];

export const iso = (d: Date) => d.toISOString();
const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

export function toMessage(row: MessageRow): Schemas["Message"] {
  const history = statusHistory(row);
  if (row.direction === "inbound") {
    return {
      messageId: row.id,
      direction: "inbound",
      from: row.from,
      to: row.to,
      body: row.body,
      status: "received",
      receivedAt: iso(row.receivedAt ?? row.createdAt),
      segments: row.segments,
      encoding: row.encoding,
      incomplete: row.incomplete,
      history: history.map((h) => ({ status: h.status, at: iso(h.at) })),
    };
  }
  return {
    messageId: row.id,
    direction: "outbound",
    jobId: row.jobId!,
    campaignId: row.campaignId,
    to: row.to,
    from: row.from,
    senderPoolId: row.senderPoolId,
    body: row.body,
    status: publicStatus(row.status),
    scheduledAt: iso(row.scheduledAt!),
    validUntil: isoOrNull(row.validUntil),
    deferredUntil: isoOrNull(row.deferredUntil),
    category: row.category,
    priority: row.priority,
    sentAt: isoOrNull(row.sentAt),
    deliveredAt: isoOrNull(row.deliveredAt),
    providerMessageId: row.providerMessageId,
    segments: row.segments,
    encoding: row.encoding,
    error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? "" } : null,
    test: row.test,
    batchId: row.batchId,
    reference: row.reference,
    metadata: row.metadata,
    sentBody: row.sentBody,
    history: history.map((h) => ({ status: h.status, at: iso(h.at) })),
    connectorId: row.connectorId,
    attempts: attemptsOf(row),
    waitingFor: row.waitingFor,
    price:
      row.priceAmount === null
        ? null
        : { amount: row.priceAmount, currency: row.priceCurrency ?? "", perSegment: row.pricePerSegment ?? 0 },
  };
}

/** A message tried on one connector only stores none: its one attempt is its connector, claim time and refusal. */
function attemptsOf(row: MessageRow): Schemas["SendAttempt"][] {
  if (row.attempts) return row.attempts;
  if (row.connectorId === null || row.submittedAt === null) return [];
  const refused = row.sentAt === null && row.errorCode !== null && row.status === "failed";
  return [
    {
      connectorId: row.connectorId,
      at: iso(row.submittedAt),
      error: refused ? { code: row.errorCode!, message: row.errorMessage ?? "" } : null,
    },
  ];
}

export const toGroup = (row: GroupRow): Schemas["Group"] => ({
  groupId: row.id,
  name: row.name,
  description: row.description,
  contactCount: Number(row.contactCount),
  createdAt: iso(row.createdAt),
});

export const toContact = (row: ContactRow): Schemas["Contact"] => ({
  contactId: row.id,
  phone: row.phone,
  firstName: row.firstName,
  lastName: row.lastName,
  tags: row.tags,
  customFields: row.customFields,
  groupId: row.groupIds[0] ?? null,
  groupIds: row.groupIds,
  timeZone: row.timeZone,
  optedOut: row.optedOut,
  createdAt: iso(row.createdAt),
  updatedAt: iso(row.updatedAt),
});

export const toWebhook = (row: WebhookRow): Schemas["Webhook"] => ({
  webhookId: row.id,
  name: row.name,
  url: row.url,
  events: row.events,
  createdAt: iso(row.createdAt),
  disabledAt: row.disabledAt ? iso(row.disabledAt) : null,
  disabledReason: row.disabledReason,
  batch: row.batch,
});

export const toCampaign = (row: CampaignRow): Schemas["Campaign"] => ({
  campaignId: row.id,
  name: row.name,
  message: row.message,
  type: row.type,
  from: row.from,
  senderPoolId: row.senderPoolId,
  groupId: row.groupId,
  status: row.status,
  scheduledAt: isoOrNull(row.scheduledAt),
  validityPeriod: row.validityPeriod,
  category: row.category,
  priority: row.priority,
  reference: row.reference,
  metadata: row.metadata,
  smartEncoding: row.smartEncoding,
  fallbacks: row.fallbacks ?? {},
  stats: row.stats,
  cost: row.estimatedCost === null ? null : { estimated: row.estimatedCost, currency: row.currency },
  deferredUntil: isoOrNull(row.deferredUntil),
  pausedAt: isoOrNull(row.pausedAt),
  createdAt: iso(row.createdAt),
});

export const toNumber = (row: NumberRow): Schemas["PhoneNumberResource"] => ({
  numberId: row.id,
  phoneNumber: row.phoneNumber,
  name: row.name,
  selfService: row.selfService,
  createdAt: iso(row.createdAt),
});

export const toOptOut = (row: OptOutRow): Schemas["OptOut"] => ({
  phone: row.phone,
  source: row.source,
  keyword: row.keyword,
  createdAt: iso(row.createdAt),
});

export const toConversation = (row: ConversationRow): Schemas["Conversation"] => ({
  phone: row.phone,
  lastMessageId: row.lastMessageId,
  lastBody: row.lastBody,
  lastReceivedAt: row.lastReceivedAt.toISOString(),
  received: row.received,
  unread: row.unread,
  readAt: row.readAt?.toISOString() ?? null,
  optedOut: row.optedOut,
});
