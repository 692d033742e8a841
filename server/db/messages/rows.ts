// The messages table's rows as the code sees them, and the column lists every statement on it shares.
import type { Knex } from "knex";
import type { StoredStatus } from "../../domain/messageStatus.js";
import type { Category, Priority } from "../../domain/sendingPolicy.js";
import type { Encoding } from "../../../common/segments.js";
import { byAccountKeysSql, type AccountKey } from "../byIdFilters.js";
import { sql } from "../sql.js";

export type { StoredStatus };

export interface MessageRow {
  id: string;
  direction: "outbound" | "inbound";
  /** null for an inbound message, and so is scheduledAt. */
  jobId: string | null;
  campaignId: string | null;
  to: string;
  from: string;
  body: string;
  status: StoredStatus;
  scheduledAt: Date | null;
  /** The end of its validity, or null: not handed to the provider by then, it is never sent. */
  validUntil: Date | null;
  /** While held by quiet hours: when the window ends in the recipient's zone; else null. */
  deferredUntil: Date | null;
  category: Category;
  priority: Priority;
  sentAt: Date | null;
  deliveredAt: Date | null;
  cancelledAt: Date | null;
  /** When it became failed or undelivered (migration 064), else null. */
  failedAt: Date | null;
  providerMessageId: string | null;
  segments: number;
  encoding: Encoding;
  errorCode: string | null;
  errorMessage: string | null;
  /** Inbound only. */
  receivedAt: Date | null;
  incomplete: boolean;
  /** Sent with a test key: through the simulator, never a carrier. */
  test: boolean;
  batchId: string | null;
  reference: string | null;
  metadata: Record<string, string> | null;
  /** The text as sent when smart encoding changed it; else null. */
  sentBody: string | null;
  createdAt: Date;
  /** When it was claimed to be written to a connector (the last time), or null. */
  submittedAt: Date | null;
  /** The connector it was (last) handed to, or null. */
  connectorId: string | null;
  /** Stored only when it was tried on more than one connector (failover); else derived from the above. */
  attempts: SendAttemptRow[] | null;
  /** `connector` while no connector of its route is available. */
  waitingFor: "connector" | null;
  /** The sender pool its sender comes from (its `from` is empty until chosen), or null. */
  senderPoolId: string | null;
  /** Its price in micro-units, fixed when it was accepted (migration 049), or null. */
  priceAmount: number | null;
  pricePerSegment: number | null;
  priceCurrency: string | null;
}

/** One connector a message was written to, and its refusal. */
export interface SendAttemptRow {
  connectorId: string;
  at: string;
  error: { code: string; message: string } | null;
}

export interface NewMessage {
  /** A submit_sm's request for a receipt to its client, in its credentials' id format (migration 046). */
  smppReceipt?: "uuid" | "hex" | "decimal" | null;
  id: string;
  jobId: string;
  campaignId?: string | null;
  to: string;
  from: string;
  body: string;
  scheduledAt: Date;
  /** null: no validity limit. */
  validUntil?: Date | null;
  /** Defaults: transactional, normal. */
  category?: Category;
  priority?: Priority;
  segments: number;
  encoding: Encoding;
  /** Sent with a test key. Default false. */
  test?: boolean;
  batchId?: string | null;
  reference?: string | null;
  metadata?: Record<string, string> | null;
  /** The text as sent when smart encoding changed it (segments and encoding are its). */
  sentBody?: string | null;
  /** Its sender is chosen from this pool when it is sent (`from` is empty until then). */
  senderPoolId?: string | null;
  /** The template its text was made from. */
  templateId?: string | null;
  /** Its price by the account's price list (billing/), or null: the account has none. */
  price?: { amount: number; perSegment: number; currency: string } | null;
}

export const columns = {
  id: "id",
  direction: "direction",
  jobId: "job_id",
  campaignId: "campaign_id",
  to: "recipient",
  from: "sender",
  body: "body",
  status: "status",
  scheduledAt: "scheduled_at",
  validUntil: "valid_until",
  deferredUntil: "deferred_until",
  category: "category",
  priority: "priority",
  sentAt: "sent_at",
  deliveredAt: "delivered_at",
  cancelledAt: "cancelled_at",
  failedAt: "failed_at",
  providerMessageId: "provider_message_id",
  segments: "segments",
  encoding: "encoding",
  errorCode: "error_code",
  errorMessage: "error_message",
  receivedAt: "received_at",
  incomplete: "incomplete",
  test: "test",
  batchId: "batch_id",
  reference: "reference",
  metadata: "metadata",
  sentBody: "sent_body",
  createdAt: "created_at",
  submittedAt: "submitted_at",
  connectorId: "connector_id",
  attempts: "attempts",
  waitingFor: "waiting_for",
  senderPoolId: "sender_pool_id",
  priceAmount: "price_amount",
  pricePerSegment: "price_per_segment",
  priceCurrency: "price_currency",
};

export const returning = [
  ...Object.entries(columns).map(([alias, col]) => `${col} as ${alias}`),
  "account_id as accountId",
  "outcome_unknown_at as outcomeUnknownAt",
];
export const returningSql = returning
  .map((r) => {
    const [col, alias] = r.split(" as ");
    return `m.${col} AS "${alias}"`;
  })
  .join(", ");
export type OwnedMessageRow = MessageRow & { accountId: string; outcomeUnknownAt: Date | null };

/** What a status change and its receipt need of a message (services/statusChanges.ts, MessageFacts). */
export interface MessageFactsRow {
  id: string;
  accountId: string;
  to: string;
  campaignId: string | null;
  providerMessageId: string | null;
  test: boolean;
  reference: string | null;
  metadata: Record<string, string> | null;
  priceAmount: number | null;
  priceCurrency: string | null;
  pricePerSegment: number | null;
}

/** The select list of MessageFactsRow, from messages as `m`. */
export const MESSAGE_FACTS_SQL = sql`m.id, m.account_id AS "accountId", m.recipient AS "to", m.campaign_id AS "campaignId",
  m.provider_message_id AS "providerMessageId", m.test, m.reference, m.metadata, m.price_amount AS "priceAmount",
  m.price_currency AS "priceCurrency", m.price_per_segment AS "pricePerSegment"`;

/** A message picked by key: its id and its account (server/db/byIdFilters.ts). */
export type MessageKey = AccountKey;

/** Messages picked by key (server/db/byIdFilters.ts). */
export const byKeys = (db: Knex, keys: MessageKey[]) => {
  return db("messages").where(byAccountKeysSql("", keys).forBuilder(db));
};
