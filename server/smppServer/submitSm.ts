// A client application's submit_sm read as the HTTP API's send request (services/messages.ts takes it from
// there, the one acceptance path of both), and a refusal of that path told in SMPP's command_status codes.
import smpp, { type PDU } from "smpp";
import type { SendRequest } from "../services/acceptMessage.js";
import { DomainError } from "../domain/errors.js";
import { parseInbound } from "../providers/smpp/inboundPdus.js";

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
  const message = parseInbound(pdu, defaultCountry);
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
