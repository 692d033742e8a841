import type { components } from "../../generated/api.js";

export type MessageStatus = components["schemas"]["MessageStatus"];
/** A message's status as stored: the public ones plus the internal `sending`. */
export type StoredStatus = "scheduled" | "sending" | "sent" | "delivered" | "failed" | "undelivered" | "cancelled" | "received";

/**
 * The message state machine (docs/API.md; the diagram is in docs/ARCHITECTURE.md). Public transitions:
 * scheduled → sent | failed | cancelled; sent → delivered | undelivered | failed. `sending` is internal: the
 * message is claimed for the provider call and can no longer be cancelled; it goes on to sent or failed, or
 * back to scheduled when the provider certainly did not take it. Nothing leaves a final status, so a late or duplicate report never moves a
 * message backwards.
 */
const TRANSITIONS: Record<StoredStatus, readonly StoredStatus[]> = {
  scheduled: ["sending", "cancelled", "failed"],
  sending: ["sent", "failed", "scheduled"],
  sent: ["delivered", "undelivered", "failed"],
  delivered: [],
  undelivered: [],
  failed: [],
  cancelled: [],
  // An inbound message's only status.
  received: [],
};

export const FINAL_STATUSES: readonly StoredStatus[] = ["delivered", "undelivered", "failed", "cancelled"];

/** The statuses a message may be in to move to `to`. */
export function allowedFrom(to: StoredStatus): StoredStatus[] {
  return (Object.keys(TRANSITIONS) as StoredStatus[]).filter((from) => TRANSITIONS[from].includes(to));
}

export function canTransition(from: StoredStatus, to: StoredStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** The API shows the internal `sending` as `scheduled` until the provider answers. */
export function publicStatus(status: StoredStatus): MessageStatus {
  return status === "sending" ? "scheduled" : status;
}

/** Stored statuses to query for a public status filter. */
export function storedStatuses(status: MessageStatus): StoredStatus[] {
  return status === "scheduled" ? ["scheduled", "sending"] : [status];
}
