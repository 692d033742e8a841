// The deliver_sm that tells a client application its message's final status (SMPP 3.4 Appendix B): esm_class
// 0x04, the standard text "id:… sub:001 dlvrd:… submit date:… done date:… stat:… err:… text:…", and the TLVs
// receipted_message_id (the id its submit_sm_resp gave), message_state and network_error_code.
import type { ClientReceipt } from "../db/smppClientReceipts.js";

const STATES = { DELIVRD: 2, EXPIRED: 3, UNDELIV: 5, UNKNOWN: 7, REJECTD: 8 } as const;

/** The id as the client's credentials write it: the message's uuid, or its short id in hex or decimal. */
export function receiptMessageId(r: Pick<ClientReceipt, "messageId" | "smppReceipt" | "smppId">): string | undefined {
  if (r.smppReceipt === "uuid") return r.messageId;
  if (r.smppId === null) return undefined; // given by the submit's next statement: not yet
  return r.smppReceipt === "hex" ? BigInt(r.smppId).toString(16) : r.smppId;
}

function statOf(r: Pick<ClientReceipt, "status" | "errorCode">): keyof typeof STATES {
  if (r.status === "delivered") return "DELIVRD";
  if (r.status === "undelivered") return "UNDELIV";
  return r.errorCode === "validity_expired" ? "EXPIRED" : "REJECTD";
}

/** YYMMDDhhmm in UTC. */
const smppDate = (d: Date) => d.toISOString().replace(/[-T:]/g, "").slice(2, 12);

/** A receipt's deliver_sm fields (`doneAt`: when it is told). */
export function receiptFields(r: ClientReceipt, id: string, doneAt: Date): Record<string, unknown> {
  const stat = statOf(r);
  const err = stat === "DELIVRD" ? "000" : "001";
  const text =
    `id:${id} sub:001 dlvrd:${stat === "DELIVRD" ? "001" : "000"} submit date:${smppDate(new Date(r.submittedAt))} ` +
    `done date:${smppDate(doneAt)} stat:${stat} err:${err} text:${r.body.slice(0, 20).replace(/[^\x20-\x7e]/g, "?")}`;
  const address = (a: string) => (a.startsWith("+") ? { ton: 1, addr: a.slice(1) } : { ton: 5, addr: a });
  const source = address(r.recipient);
  const destination = address(r.sender);
  return {
    source_addr_ton: source.ton,
    source_addr_npi: source.ton === 1 ? 1 : 0,
    source_addr: source.addr,
    dest_addr_ton: destination.ton,
    dest_addr_npi: destination.ton === 1 ? 1 : 0,
    destination_addr: destination.addr,
    esm_class: 0x04,
    data_coding: 0, // the receipt's text is printable ASCII (the message's own text beyond it shown as "?")
    short_message: text,
    receipted_message_id: id,
    message_state: STATES[stat],
    // Network type 3 (GSM) and the error: 0 when delivered.
    network_error_code: Buffer.from([3, 0, stat === "DELIVRD" ? 0 : 1]),
  };
}
