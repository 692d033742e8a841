// A client application's submit_sm read as the HTTP API's send request (services/messages.ts takes it from
// there, the one acceptance path of both), and a refusal of that path told in SMPP's command_status codes.
import smpp, { type PDU } from "smpp";
import type { SendRequest } from "../services/acceptMessage.js";
import { DomainError } from "../domain/errors.js";
import { parseInbound } from "../providers/smpp/inboundPdus.js";
import { MAX_VALIDITY_SECONDS } from "../domain/validity.js";
import { MAX_BODY } from "../../common/personalise.js";

/**
 * The data_coding values whose text the `smpp` package decodes: 0 and 1 (GSM 03.38), 3 (Latin-1), 8 (UCS-2).
 * Any other (binary 4, the national ones, message classes) is refused, never stored as guessed bytes.
 */
const CODINGS: ReadonlySet<number> = new Set([0x00, 0x01, 0x03, 0x08]);
/** What no decoded text may hold: NUL (PostgreSQL's text cannot), U+FFFD (bytes the coding could not decode), a
 * surrogate alone (UCS-2 cut in the middle of a pair). */
const INVALID_TEXT = /\uFFFD|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The length of a text as the HTTP API counts `body` (characters: code points, 1 to 1600). */
export const textLength = (text: string): number => [...text].length;

/** A submit_sm refused before it reaches the acceptance path, with its command_status. */
export class SubmitRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The send request a submit_sm makes, and which part of a concatenated message it is (UDH 8- or 16-bit
 * reference, or the SAR TLVs); throws SubmitRefused for what SMPP itself forbids.
 */
export function sendRequestOf(
  pdu: PDU,
  now: Date,
  defaultCountry: string | undefined,
): { request: SendRequest; part?: { reference: number; total: number; seq: number } } {
  const e = smpp.errors;
  const dataCoding = (pdu.data_coding as number | undefined) ?? 0;
  if (!CODINGS.has(dataCoding)) throw new SubmitRefused(e.ESME_RINVDCS!, `data_coding ${dataCoding} is not supported (0, 1, 3 or 8)`);
  const message = parseInbound(pdu, defaultCountry);
  // No text (an empty short_message without message_payload, or a part that is a UDH alone): nothing to send.
  if (message.text === "") throw new SubmitRefused(e.ESME_RINVMSGLEN!, "the message has no text");
  if (message.text.includes("\u0000") || INVALID_TEXT.test(message.text))
    throw new SubmitRefused(e.ESME_RINVDCS!, `the text holds bytes invalid in data_coding ${dataCoding}`);
  if (textLength(message.text) > MAX_BODY) throw new SubmitRefused(e.ESME_RINVMSGLEN!, `the text is longer than ${MAX_BODY} characters`);
  const request: SendRequest = { to: message.to, from: message.from, body: message.text };
  // The `smpp` package reads SMPP's time fields (§7.1.1) into Dates: an absolute time with its UTC offset, or a
  // relative one ("…R") counted from now, as SMPP counts it from the SMSC's current time; a field of another
  // shape becomes an invalid Date. An empty field is absent.
  const schedule = timeField(pdu.schedule_delivery_time, smpp.errors.ESME_RINVSCHED!, "schedule_delivery_time");
  if (schedule) request.scheduledAt = schedule.toISOString();
  const validity = timeField(pdu.validity_period, smpp.errors.ESME_RINVEXPIRY!, "validity_period");
  if (validity) {
    const seconds = Math.floor((validity.getTime() - (schedule ?? now).getTime()) / 1000);
    if (seconds < 1) throw new SubmitRefused(smpp.errors.ESME_RINVEXPIRY!, "the validity period ends before the message's time");
    // As POST /messages caps validityPeriod (400 beyond seven days): refused, never stored longer.
    if (seconds > MAX_VALIDITY_SECONDS)
      throw new SubmitRefused(smpp.errors.ESME_RINVEXPIRY!, `the validity period is longer than ${MAX_VALIDITY_SECONDS} s (seven days)`);
    request.validityPeriod = seconds;
  }
  return { request, part: message.part };
}

function timeField(value: unknown, status: number, name: string): Date | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw new SubmitRefused(status, `${name} is not an SMPP time`);
  return value;
}

/** The command_status of a refusal by the acceptance path (by its code and the field it names). */
export function statusOfRefusal(error: DomainError): number {
  const e = smpp.errors;
  const field = error.errors?.[0]?.path ?? "";
  switch (error.code) {
    case "sender_not_allowed":
      return e.ESME_RINVSRCADR!;
    case "destination_not_allowed":
    case "destination_blocked":
    case "recipient_opted_out":
      return e.ESME_RINVDSTADR!;
    case "quota_exceeded":
      return e.ESME_RMSGQFUL!;
    case "validation_failed":
      if (field.endsWith("/to")) return e.ESME_RINVDSTADR!;
      if (field.endsWith("/from")) return e.ESME_RINVSRCADR!;
      if (field.endsWith("/body")) return e.ESME_RINVMSGLEN!;
      if (field.endsWith("/scheduledAt")) return e.ESME_RINVSCHED!;
      if (field.endsWith("/validityPeriod")) return e.ESME_RINVEXPIRY!;
      return e.ESME_RSUBMITFAIL!;
    default:
      return e.ESME_RSUBMITFAIL!;
  }
}

/** A message's id as the credentials write it. */
export const formatId = (format: "uuid" | "hex" | "decimal", messageId: string, smppId: string | null): string =>
  format === "uuid" || smppId === null ? messageId : format === "hex" ? BigInt(smppId).toString(16) : smppId;
