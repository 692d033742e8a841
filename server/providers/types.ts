// What a provider (the simulator, an SMPP carrier connection) offers the delivery engine.
import type { Encoding } from "../../common/segments.js";
import type { Priority } from "../domain/sendingPolicy.js";
import type { OwnedMessageRow } from "../db/messages/index.js";
import type { SendWindow } from "./window.js";

export interface OutboundMessage {
  messageId: string;
  to: string;
  from: string;
  body: string;
  encoding: Encoding;
  segments: number;
  /** The end of its validity, if it has one: a carrier that supports it drops the message after that. */
  validUntil?: Date | null;
  /** Its priority (the simulator's report of it runs at it); normal when not given. */
  priority?: Priority;
  /** The account it is sent for (the simulator's report job names it). */
  accountId?: string;
}

/** A claimed message as a provider is given it: the text it is sent with (its personalised one, if any). */
export const outboundOf = (m: OwnedMessageRow): OutboundMessage => ({
  messageId: m.id,
  to: m.to,
  from: m.from,
  body: m.sentBody ?? m.body,
  encoding: m.encoding,
  segments: m.segments,
  validUntil: m.validUntil,
  priority: m.priority,
  accountId: m.accountId,
});

export type SubmitResult =
  /** segmentIds: a message written in several SMPP segments, the carrier's id of each (the first is providerMessageId). */
  | { accepted: true; providerMessageId: string; segmentIds?: string[] }
  /** The provider refused the message for good: it becomes `failed` with this error. */
  | { accepted: false; code: string; message: string };

/**
 * Thrown when the message was certainly not handed over (not connected, throttled before sending): the send
 * is retried later. Any other error from `submit` is ambiguous (the provider may have it) and is never retried.
 */
export class ProviderUnavailable extends Error {
  constructor(
    message: string,
    readonly retryAfterMs = 1000,
    /** The link was up but throttled it too long (routing may move it within its pool only). */
    readonly throttled = false,
  ) {
    super(message);
  }
}

// Defined beside the table that keeps unmatched receipts (db/ is below providers/).
export type { ReceiptFacts } from "../db/unmatchedReceipts.js";

export interface Provider {
  readonly name: string;
  /** The link messages go out on (receipts that match no id are matched to unknown outcomes of the same link). */
  readonly link: string;
  /** Messages on the wire at once per worker: the bound on unknown outcomes after a crash or a dropped link. */
  readonly window: SendWindow;
  submit(message: OutboundMessage): Promise<SubmitResult>;
  /** Many at once, one result (or the error `submit` would have thrown) per message, in order. */
  submitBatch?(messages: OutboundMessage[]): Promise<(SubmitResult | Error)[]>;
  /** Waits until `n` messages could be written at once (a rate limit), so a claimed window is not kept waiting. */
  beforeClaim?(n: number): Promise<void>;
  /** Takes the rate for `n` messages now and says when each may be written (ms since the epoch, in order). */
  reserveSlots?(n: number): number[];
  start?(): Promise<void>;
  stop?(): Promise<void>;
}

/** Submits a batch through submitBatch when the provider has it, else one by one, concurrently. */
export async function submitAll(provider: Provider, messages: OutboundMessage[]): Promise<(SubmitResult | Error)[]> {
  if (provider.submitBatch) return provider.submitBatch(messages);
  return Promise.all(
    messages.map((m) => provider.submit(m).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))),
  );
}
