// The deliver_sm PDUs a client application is sent: a delivery receipt (SMPP 3.4 Appendix B: esm_class 0x04,
// the standard text "id:… sub:001 dlvrd:… submit date:… done date:… stat:… err:… text:…", and the TLVs
// receipted_message_id — the id its submit_sm_resp gave —, message_state and network_error_code), or an inbound
// message (esm_class 0: the text as GSM 03.38 when it fits, else UCS-2; in message_payload when longer than
// short_message's 254 octets).
import { isGsm7 } from "../../common/segments.js";
import type { OutboxEntry } from "../db/smppOutbox.js";

const STATES = { DELIVRD: 2, EXPIRED: 3, UNDELIV: 5, UNKNOWN: 7, REJECTD: 8 } as const;

/** The id as the client's credentials write it: the message's uuid, or its short id in hex or decimal. */
export function receiptMessageId(r: Pick<OutboxEntry, "messageId" | "smppReceipt" | "smppId" | "receiptId">): string | undefined {
  if (r.receiptId !== null) return r.receiptId;
  if (r.smppReceipt === "uuid" || r.smppReceipt === null) return r.messageId;
  if (r.smppId === null) return undefined; // given by the submit's next statement: not yet
  return r.smppReceipt === "hex" ? BigInt(r.smppId).toString(16) : r.smppId;
}

function statOf(r: Pick<OutboxEntry, "status" | "errorCode">): keyof typeof STATES {
  if (r.status === "delivered") return "DELIVRD";
  if (r.status === "undelivered") return "UNDELIV";
  return r.errorCode === "validity_expired" ? "EXPIRED" : "REJECTD";
}

/** YYMMDDhhmm in UTC. */
const smppDate = (d: Date) => d.toISOString().replace(/[-T:]/g, "").slice(2, 12);

/** An address with its type of number: E.164 as international (TON 1), anything else alphanumeric (TON 5). */
function address(a: string, prefix: "source" | "dest") {
  const international = a.startsWith("+");
  return {
    [`${prefix}_addr_ton`]: international ? 1 : 5,
    [`${prefix}_addr_npi`]: international ? 1 : 0,
    [prefix === "source" ? "source_addr" : "destination_addr"]: international ? a.slice(1) : a,
  };
}

/** A receipt's deliver_sm fields (`doneAt`: when it is told). */
export function receiptFields(r: OutboxEntry, id: string, doneAt: Date): Record<string, unknown> {
  const stat = statOf(r);
  const err = stat === "DELIVRD" ? "000" : "001";
  const text =
    `id:${id} sub:001 dlvrd:${stat === "DELIVRD" ? "001" : "000"} submit date:${smppDate(new Date(r.createdAt))} ` +
    `done date:${smppDate(doneAt)} stat:${stat} err:${err} text:${r.body.slice(0, 20).replace(/[^\x20-\x7e]/g, "?")}`;
  return {
    // From the message's recipient, to its sender.
    ...address(r.recipient, "source"),
    ...address(r.sender, "dest"),
    esm_class: 0x04,
    data_coding: 0, // the receipt's text is printable ASCII (the message's own text beyond it shown as "?")
    short_message: text,
    receipted_message_id: id,
    message_state: STATES[stat],
    // Network type 3 (GSM) and the error: 0 when delivered.
    network_error_code: Buffer.from([3, 0, stat === "DELIVRD" ? 0 : 1]),
  };
}

/** An inbound message's deliver_sm fields: from the phone that sent it, to the account's number. */
export function inboundFields(r: OutboxEntry): Record<string, unknown> {
  const gsm = isGsm7(r.body);
  const octets = gsm ? r.body.length : r.body.length * 2;
  return {
    ...address(r.sender, "source"),
    ...address(r.recipient, "dest"),
    esm_class: 0,
    data_coding: gsm ? 0 : 8,
    ...(octets <= 254 ? { short_message: r.body } : { short_message: "", message_payload: r.body }),
  };
}
