import type { components } from "../../generated/api.js";
import type { StoredStatus } from "../db/messages.js";

export type MessageStatus = components["schemas"]["MessageStatus"];

/**
 * 'sending' is internal: the message is claimed for the provider call and can no longer be cancelled. The
 * contract has no such status, so the API shows it as `scheduled` until the provider answers.
 */
export function publicStatus(status: StoredStatus): MessageStatus {
  return status === "sending" ? "scheduled" : status;
}

/** Stored statuses to query for a public status filter. */
export function storedStatuses(status: MessageStatus): StoredStatus[] {
  return status === "scheduled" ? ["scheduled", "sending"] : [status];
}
