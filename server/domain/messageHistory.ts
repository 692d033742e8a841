// A message's status history, derived from the row's own timestamps (migration 064): nothing stores it. The
// state machine (messageStatus.ts) visits each public status at most once, on one path — scheduled, then sent,
// then one final status; or scheduled straight to failed or cancelled — so the time of each step the message
// took is the column that step sets: created_at (scheduled), sent_at, then delivered_at, failed_at (failed or
// undelivered) or cancelled_at. An inbound message has one entry, received.
import type { StoredStatus } from "./messageStatus.js";

export interface StatusChange {
  status: Exclude<StoredStatus, "sending">;
  at: Date;
}

/** The timestamps of a message row the history is read from. */
export interface HistoryTimes {
  direction: "outbound" | "inbound";
  status: StoredStatus;
  createdAt: Date;
  receivedAt: Date | null;
  sentAt: Date | null;
  deliveredAt: Date | null;
  failedAt: Date | null;
  cancelledAt: Date | null;
}

/** Its status changes, oldest first. */
export function statusHistory(m: HistoryTimes): StatusChange[] {
  if (m.direction === "inbound") return [{ status: "received", at: m.receivedAt ?? m.createdAt }];
  const history: StatusChange[] = [{ status: "scheduled", at: m.createdAt }];
  if (m.sentAt) history.push({ status: "sent", at: m.sentAt });
  const finalAt = { delivered: m.deliveredAt, failed: m.failedAt, undelivered: m.failedAt, cancelled: m.cancelledAt }[m.status as string];
  if (finalAt) history.push({ status: m.status as StatusChange["status"], at: finalAt });
  return history;
}
