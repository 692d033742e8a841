// Mobile-originated messages: a deliver_sm or data_sm whose esm_class message type (bits 0x3C) is 0 (0x04 is a
// delivery receipt, receiptPdus.ts). The `smpp` package has already decoded the text by data_coding when it parsed
// the PDU (0: GSM 03.38 default alphabet, one octet per septet as SMPP carries it; 3: Latin-1; 8: UCS-2
// big-endian, surrogate pairs included) and split off the UDH when esm_class has UDHI (0x40). This reads the
// part of a long message from the UDH (IE 0x00, 8-bit reference, or 0x08, 16-bit) or the SAR TLVs.
import type { PDU } from "smpp";
import type { Db } from "../../db/knex.js";
import { isGsm7, type Encoding } from "../../../common/segments.js";
import { fromSmppAddress } from "../../domain/phone.js";
import type { Logger } from "../../logger.js";
import { receiveInboundMessage } from "../../services/inbound.js";
import { receiveInboundPart, type InboundOptions } from "../../services/inboundParts.js";

export interface SmppInbound {
  from: string;
  to: string;
  text: string;
  encoding: Encoding;
  /** Set when the PDU is one part of a long message. */
  part?: { reference: number; total: number; seq: number };
}

interface Decoded {
  udh?: Buffer[];
  message: string | Buffer;
}

export function isInboundMessage(pdu: PDU): boolean {
  return (((pdu.esm_class as number | undefined) ?? 0) & 0x3c) === 0;
}

/** An address field as E.164 where it is a number, read with its TON (domain/phone.ts, fromSmppAddress). */
export function smppAddress(value: unknown, ton: unknown, defaultCountry: string | undefined): string {
  return fromSmppAddress(typeof value === "string" ? value : "", typeof ton === "number" ? ton : 0, defaultCountry);
}

/** `defaultCountry`: SMPP_DEFAULT_COUNTRY, the country of national-format addresses. */
export function parseInbound(pdu: PDU, defaultCountry?: string): SmppInbound {
  // message_payload, when present, carries the whole text (short_message is then empty).
  const content = (pdu.message_payload ?? pdu.short_message) as Decoded | undefined;
  const message = content?.message ?? "";
  // Codings the package cannot decode (binary, or ones it has no table for) are kept byte for byte as Latin-1.
  const text = typeof message === "string" ? message : message.toString("latin1");
  const dataCoding = ((pdu.data_coding as number | undefined) ?? 0) & 0x0f;
  return {
    from: smppAddress(pdu.source_addr, pdu.source_addr_ton, defaultCountry),
    to: smppAddress(pdu.destination_addr, pdu.dest_addr_ton, defaultCountry),
    text,
    encoding: dataCoding === 0x08 || !isGsm7(text) ? "UCS-2" : "GSM-7",
    part: fromUdh(content?.udh) ?? fromSar(pdu),
  };
}

function fromUdh(udh: Buffer[] | undefined): SmppInbound["part"] {
  for (const ie of udh ?? []) {
    if (ie[0] === 0x00 && ie[1] === 3 && ie.length >= 5) return valid(ie[2]!, ie[3]!, ie[4]!);
    if (ie[0] === 0x08 && ie[1] === 4 && ie.length >= 6) return valid(ie.readUInt16BE(2), ie[4]!, ie[5]!);
  }
  return undefined;
}

function fromSar(pdu: PDU): SmppInbound["part"] {
  const reference = pdu.sar_msg_ref_num as number | undefined;
  const total = pdu.sar_total_segments as number | undefined;
  const seq = pdu.sar_segment_seqnum as number | undefined;
  if (reference === undefined || total === undefined || seq === undefined) return undefined;
  return valid(reference, total, seq);
}

/** A part of a message of two or more parts; anything else (total 1, seq out of range) is a whole message. */
function valid(reference: number, total: number, seq: number): SmppInbound["part"] {
  return total >= 2 && seq >= 1 && seq <= total ? { reference, total, seq } : undefined;
}

/**
 * Stores a whole inbound message, or a part of a long one; resolves once it is durably stored. `defaultCountry`:
 * SMPP_DEFAULT_COUNTRY.
 */
export async function storeSmppInbound(db: Db, log: Logger, pdu: PDU, opts: InboundOptions & { defaultCountry?: string }): Promise<void> {
  const { from, to, text, encoding, part } = parseInbound(pdu, opts.defaultCountry);
  if (part) return receiveInboundPart(db, log, { from, to, ...part, body: text, encoding }, opts);
  await receiveInboundMessage(db, log, { from, to, body: text, encoding, receivedAt: new Date() }, opts);
}
