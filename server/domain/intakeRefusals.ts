// The refusals of the intake rules, each worded once for every door a message comes in by (docs/ARCHITECTURE.md,
// "Where a new intake rule goes"): a single send or a schedule throws it as a problem (refusalError), a batch
// item reports it (refusalItem), the SMPP server answers its code's status (smppServer/submitSm.ts), a campaign
// refuses itself with it or counts a recipient it leaves out by its code. test/api/one-door.test.ts sends each
// through every door and reads the same code and the same words.
import { DomainError } from "./errors.js";

export interface IntakeRefusal {
  code: "recipient_opted_out" | "sender_not_allowed" | "insufficient_funds" | "destination_not_allowed" | "destination_blocked";
  /** The sentence a person reads, the same at every door. */
  detail: string;
  /** The field it is about (a JSON pointer into the request). */
  path: string;
  /** The field's own words, for the problem's `errors`. */
  reason: string;
}

export const optedOutRefusal = (to: string, path: string): IntakeRefusal => ({
  code: "recipient_opted_out",
  detail: `${to} is on this account's opt-out list; not accepted.`,
  path,
  reason: "opted out",
});

export const senderRefusal = (from: string, path: string, why: string): IntakeRefusal => ({
  code: "sender_not_allowed",
  detail: `The sender ${from} ${why}; not accepted.`,
  path,
  reason: why,
});

export const fundsRefusal = (path: string): IntakeRefusal => ({
  code: "insufficient_funds",
  detail: "The account's balance cannot pay for this: not accepted. Ask the operator for a top-up.",
  path,
  reason: "insufficient funds",
});

export const destinationRefusalOf = (
  e164: string,
  refusal: { code: "destination_not_allowed" | "destination_blocked"; reason: string },
  path: string,
): IntakeRefusal => ({ code: refusal.code, detail: `${e164} ${refusal.reason}; not accepted.`, path, reason: refusal.reason });

/** The refusal as the problem a door that takes one message answers with. */
export const refusalError = (r: IntakeRefusal): DomainError =>
  new DomainError(r.code, r.detail, { errors: [{ path: r.path, message: r.reason }] });

/** The refusal as a batch item's error. */
export const refusalItem = (r: IntakeRefusal): { code: IntakeRefusal["code"]; detail: string; path: string } => ({
  code: r.code,
  detail: r.detail,
  path: r.path,
});
