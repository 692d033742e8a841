import { DomainError } from "./errors.js";

export const MAX_SCHEDULE_AHEAD_MS = 365 * 24 * 60 * 60 * 1000;

/** `scheduledAt` must be later than the time of the request and at most 365 days ahead. */
export function checkScheduledAt(scheduledAt: Date, now: Date, path = "/body/scheduledAt"): void {
  if (scheduledAt.getTime() <= now.getTime()) {
    throw new DomainError("scheduled_at_not_in_future", `scheduledAt must be later than the time of the request (${now.toISOString()}).`, {
      errors: [{ path, message: "must be in the future" }],
    });
  }
  if (scheduledAt.getTime() - now.getTime() > MAX_SCHEDULE_AHEAD_MS) {
    throw new DomainError("scheduled_at_too_far", "scheduledAt must be at most 365 days ahead.", {
      errors: [{ path, message: "must be at most 365 days ahead" }],
    });
  }
}
