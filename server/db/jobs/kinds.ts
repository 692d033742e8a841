// Every job kind, its payload and its attempt budget, in one place (graphile-worker's Tasks map, River's
// JobArgs.Kind()). Inserts, handlers and providers are typed with it, so a payload is written and read as the
// same type. The runner matches a claimed row's kind to its handler; that lookup is the one place a stored
// payload becomes typed (every row of a kind was inserted through this map).

export interface JobKinds {
  /** Hand a scheduled message to the provider at its time. */
  /** `test`: a test key's message, sent through the simulator whatever the deployment's carriers. */
  send_message: { messageId: string; test?: true };
  /** A provider's later status report (the simulator's delivery receipts). */
  provider_report: {
    providerMessageId: string;
    status: "delivered" | "undelivered" | "failed";
    error?: { code: string; message: string };
    /** When the provider saw the status; defaults to when the report is applied. */
    at?: string;
    /** What the report says besides the id (to match it when the id is unknown): E.164 destination, submit time, text prefix. */
    destination?: string;
    submittedAt?: string;
    text?: string;
  };
  /** Turn a campaign's audience snapshot into messages. */
  campaign_fanout: { campaignId: string };
  /** POST one receipt of the outbox (webhook_deliveries) to its webhook. */
  deliver_receipt: { deliveryId: string };
  /** An SMPP deliver_sm receipt for one segment, stored before it was acknowledged. */
  smpp_receipt: {
    segmentId: string;
    stat: string;
    err: string | null;
    at: string;
    /** The link it came on and what it says besides the id (to match it when the id is unknown). */
    link?: string;
    destination?: string | null;
    submittedMinute?: string | null;
    text?: string | null;
    /** Its connector's messageIdFormat is `exact`: the id is not read as hexadecimal or decimal. */
    exactId?: boolean;
  };
}

export type JobKind = keyof JobKinds;
export type JobPayload<K extends JobKind> = JobKinds[K];

/**
 * Attempts per kind. An attempt is a claim: a worker that dies mid-job uses one too, so every budget leaves
 * room for crashes and database outages; the handlers are safe to re-run.
 */
export const MAX_ATTEMPTS: Record<JobKind, number> = {
  send_message: 10,
  // A report can overtake the recording of the submit's answer; it waits for it a few times.
  provider_report: 10,
  campaign_fanout: 25,
  // The HTTP attempts are counted in the delivery row (jobs/handlers/deliverReceipt.ts), not here.
  deliver_receipt: 10,
  smpp_receipt: 20,
};
