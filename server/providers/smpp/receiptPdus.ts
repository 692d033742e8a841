// Delivery receipts arrive as deliver_sm with the receipt flag in esm_class; the text carries
// "id:… sub:… dlvrd:… submit date:… done date:… stat:DELIVRD err:000 text:…", and the receipted_message_id /
// message_state TLVs, when present, take precedence.
import type { PDU } from "smpp";
import { smppAddress } from "./inboundPdus.js";

export interface SmppReceipt {
  messageId: string;
  stat: string;
  err: string | null;
  /** The receipt's source address (the message's destination), E.164 with "+", when it has one. */
  destination: string | null;
  /** `submit date:YYMMDDhhmm`, read as UTC, when present and valid. */
  submittedMinute: Date | null;
  /** `text:`, the first characters of the message, when present and not empty. */
  text: string | null;
}

const MESSAGE_STATES: Record<number, string> = {
  1: "ENROUTE",
  2: "DELIVRD",
  3: "EXPIRED",
  4: "DELETED",
  5: "UNDELIV",
  6: "ACCEPTD",
  7: "UNKNOWN",
  8: "REJECTD",
};

export function isDeliveryReceipt(pdu: PDU): boolean {
  return ((pdu.esm_class as number) & 0x3c) === 0x04;
}

/** `defaultCountry`: SMPP_DEFAULT_COUNTRY, the country of a national-format source address. */
export function parseReceipt(pdu: PDU, defaultCountry?: string): SmppReceipt | undefined {
  const sm = pdu.short_message as { message?: string | Buffer } | Buffer | string | undefined;
  const raw = sm && typeof sm === "object" && !Buffer.isBuffer(sm) ? sm.message : sm;
  const text = Buffer.isBuffer(raw) ? raw.toString("latin1") : (raw ?? "");
  const id = (pdu.receipted_message_id as string | undefined) || /\bid:(\S+)/i.exec(text)?.[1];
  const stat =
    (pdu.message_state ? MESSAGE_STATES[pdu.message_state as number] : undefined) ?? /\bstat:(\w+)/i.exec(text)?.[1]?.toUpperCase();
  if (!id || !stat) return undefined;
  const source = smppAddress(pdu.source_addr, pdu.source_addr_ton, defaultCountry);
  return {
    messageId: id,
    stat,
    err: /\berr:(\w+)/i.exec(text)?.[1] ?? null,
    destination: /^\+[1-9]\d{6,14}$/.test(source) ? source : null,
    submittedMinute: submitMinute(/\bsubmit date:(\d{10})\b/i.exec(text)?.[1]),
    text: /\btext:(.+)$/is.exec(text)?.[1] ?? null,
  };
}

function submitMinute(yymmddhhmm: string | undefined): Date | null {
  if (!yymmddhhmm) return null;
  const [yy, mo, dd, hh, mi] = yymmddhhmm.match(/\d\d/g)!.map(Number) as [number, number, number, number, number];
  const at = new Date(Date.UTC(2000 + yy, mo - 1, dd, hh, mi));
  return at.getUTCMonth() === mo - 1 && at.getUTCDate() === dd && hh < 24 && mi < 60 ? at : null;
}

/** Final outcome of a receipt status, or undefined for an intermediate one (ENROUTE, ACCEPTD). */
export function outcomeOf(stat: string): "delivered" | "undelivered" | "failed" | undefined {
  if (stat === "DELIVRD") return "delivered";
  if (stat === "UNDELIV" || stat === "EXPIRED" || stat === "DELETED") return "undelivered";
  if (stat === "REJECTD" || stat === "UNKNOWN") return "failed";
  return undefined;
}

/**
 * The error a failed or undeliverable receipt status gives its message: EXPIRED (the SMSC dropped it when the
 * validity_period we sent ran out) is `expired`; any other is `SMPP_<stat>`.
 */
export function receiptError(stat: string, err: string | null, prefix = ""): { code: string; message: string } {
  const detail = `${prefix}${stat}${err ? ` (err ${err})` : ""}.`;
  if (stat === "EXPIRED")
    return { code: "expired", message: `The carrier's validity period for the message ended before delivery: ${detail}` };
  return { code: `SMPP_${stat}`, message: detail };
}
