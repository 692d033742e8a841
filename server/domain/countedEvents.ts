// What the engine counts about messages and the reports read back (docs/REPORTS.md): the statements that
// make an event count it (db/messageCounts.ts), the reports module reads the counts (server/reports/).

/** The error code of a message not sent for its recipient's opt-out: counted as failed, and as optedOut. */
export const OPTED_OUT_CODE = "recipient_opted_out";

/**
 * Time to delivered (from the message's due time, `scheduledAt`, to its `deliveredAt`) is counted in buckets
 * with these upper bounds in seconds; bucket i holds times from bound[i-1] up to (not including) bound[i], the last bucket everything
 * longer than a day. Frozen with migration 036 (its trigger writes the bucket's index).
 */
export const TTD_BOUNDS_SECONDS = [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400] as const;
