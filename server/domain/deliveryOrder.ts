// Per message and webhook, deliveries go out in seq order: one whose earlier deliveries are still pending is
// parked behind them, and released when they finish (db/webhookDeliveries.ts).
import { EVENT_SEQ } from "./events.js";
import { RECEIPT_SEQ } from "./receiptPayload.js";

/** The highest seq any delivery has (a final status's receipt, an opt-out event). */
export const LAST_DELIVERY_SEQ = Math.max(...Object.values(RECEIPT_SEQ), ...Object.values(EVENT_SEQ));

/**
 * Whether a later delivery of the same message can be parked behind one of this seq, so that finishing it
 * must be followed by a release. Nothing ever waits behind the last seq: half of all receipts (every final
 * status's) finish without the release statement.
 */
export function mayHoldBackLater(seq: number): boolean {
  return seq < LAST_DELIVERY_SEQ;
}
