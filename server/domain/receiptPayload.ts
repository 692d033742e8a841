// The delivery receipt payload of the contract, serialised once: these exact bytes are stored in the outbox,
// signed and sent, so the signature always matches what the receiver reads.
import type { components } from "../../generated/api.js";

export type ReceiptStatus = "sent" | "delivered" | "failed" | "undelivered";
export type DeliveryReceipt = components["schemas"]["DeliveryReceipt"];

/** Receipts of one message are delivered in this order. */
export const RECEIPT_SEQ: Record<ReceiptStatus, number> = { sent: 1, delivered: 2, undelivered: 2, failed: 2 };

export interface ReceiptFacts {
  status: ReceiptStatus;
  at: Date;
  messageId: string;
  to: string;
  providerMessageId: string | null;
  campaignId: string | null;
  error: { code: string; message: string } | null;
  /** A test key's message. */
  test?: boolean;
  /** The caller's reference and metadata, null when absent. */
  reference: string | null;
  metadata: Record<string, string> | null;
  /** Its price, when the account had a price list (docs/BILLING.md). */
  price?: { amount: number; currency: string; perSegment: number } | null;
}

export function receiptBody(f: ReceiptFacts): string {
  const receipt: DeliveryReceipt = {
    event: `dlr.${f.status}`,
    timestamp: f.at.toISOString(),
    messageId: f.messageId,
    to: f.to,
    status: f.status,
    providerMessageId: f.providerMessageId,
    reference: f.reference,
    metadata: f.metadata,
    ...(f.campaignId ? { campaignId: f.campaignId } : {}),
    ...(f.error && (f.status === "failed" || f.status === "undelivered") ? { error: f.error } : {}),
    ...(f.test ? { test: true as const } : {}),
    ...(f.price ? { price: f.price } : {}),
  };
  return JSON.stringify(receipt);
}
