// submit_sm PDUs for one message: GSM 03.38 (data_coding 0, one octet per septet as SMPP carries it) when
// the text fits, else UCS-2 (data_coding 8, UTF-16BE); longer texts are split exactly as the API counts
// `segments` and each part carries a concatenation UDH (IEI 0x00, 8-bit reference).
import smpp from "smpp";
import { splitSegments } from "../../../common/segments.js";
import type { OutboundMessage } from "../types.js";

export const DATA_CODING = { "GSM-7": 0x00, "UCS-2": 0x08 } as const;
export const ESM_UDHI = 0x40;

function encode(text: string, encoding: "GSM-7" | "UCS-2"): Buffer {
  return encoding === "GSM-7" ? smpp.encodings.ASCII!.encode(text) : Buffer.from(text, "utf16le").swap16();
}

/**
 * The validity left at `now` in SMPP's relative time format (YYMMDDhhmmss000R, SMPP 3.4 section 7.1.1; the
 * library appends "000R" to 12 digits): relative, so the SMSC's clock does not matter. At least one second.
 */
export function relativeValidity(validUntil: Date, now = new Date()): string {
  let left = Math.max(1, Math.ceil((validUntil.getTime() - now.getTime()) / 1000));
  const seconds = left % 60;
  left = Math.floor(left / 60);
  const minutes = left % 60;
  left = Math.floor(left / 60);
  const hours = left % 24;
  const days = Math.min(99, Math.floor(left / 24));
  return [0, 0, days, hours, minutes, seconds].map((n) => String(n).padStart(2, "0")).join("");
}

export function submitPdus(m: OutboundMessage, reference: number): Record<string, unknown>[] {
  const { encoding, parts } = splitSegments(m.body);
  const alphanumeric = !m.from.startsWith("+");
  const validity = m.validUntil ? { validity_period: relativeValidity(m.validUntil) } : {};
  return parts.map((part, i) => {
    const payload = encode(part, encoding);
    const udh = Buffer.from([0x05, 0x00, 0x03, reference & 0xff, parts.length, i + 1]);
    return {
      source_addr_ton: alphanumeric ? 0x05 : 0x01,
      source_addr_npi: alphanumeric ? 0x00 : 0x01,
      source_addr: alphanumeric ? m.from : m.from.slice(1),
      dest_addr_ton: 0x01,
      dest_addr_npi: 0x01,
      destination_addr: m.to.slice(1),
      registered_delivery: 0x01,
      ...validity,
      data_coding: DATA_CODING[encoding],
      esm_class: parts.length > 1 ? ESM_UDHI : 0x00,
      short_message: parts.length > 1 ? Buffer.concat([udh, payload]) : payload,
    };
  });
}
