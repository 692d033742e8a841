// The benchmark's SMSC (bench:smpp), a process of its own on the `smpp` package's server: binds any system_id,
// answers every submit_sm at once with the next decimal message_id, and right after it sends a DELIVRD receipt
// (deliver_sm, esm_class 0x04) for it on the same session. It keeps no state beyond a counter, so whoever binds
// to it (our workers, Kannel, the trivial client of its own ceiling) is measured, not it. Decimal ids on both
// PDUs: what Kannel's msg-id-type 0x00 and our exact match both read.
// Prints "listening <port>" once bound to 127.0.0.1; "count" on stdin prints "count <submits answered so far>
// <sessions bound now>".
import smpp, { type PDU, type Session } from "smpp";
import type { AddressInfo } from "node:net";

let submits = 0;
/** Sessions bound now. */
let bound = 0;

function receiptText(id: string, submitted: string): string {
  return `id:${id} sub:001 dlvrd:001 submit date:${submitted} done date:${submitted} stat:DELIVRD err:000 text:`;
}

/** YYMMDDhhmm in UTC, as receipts carry it. */
function smppMinute(at: Date): string {
  return at.toISOString().replace(/\D/g, "").slice(2, 12);
}

const server = smpp.createServer((session: Session) => {
  // What one read of the socket asks for is answered in one write (corked until the end of this turn), and
  // that write goes at once (TCP_NODELAY): no answer waits for the peer's delayed ACK.
  session.socket.setNoDelay(true);
  let corked = false;
  const cork = () => {
    if (corked) return;
    corked = true;
    session.socket.cork();
    setImmediate(() => {
      corked = false;
      session.socket.uncork();
    });
  };
  const bind = (pdu: PDU) => {
    bound++;
    session.once("close", () => bound--);
    session.send(pdu.response());
  };
  session.on("bind_transceiver", bind);
  session.on("bind_transmitter", bind);
  session.on("bind_receiver", bind);
  session.on("enquire_link", (pdu: PDU) => session.send(pdu.response()));
  session.on("unbind", (pdu: PDU) => {
    session.send(pdu.response());
    session.close();
  });
  session.on("submit_sm", (pdu: PDU) => {
    const id = String(++submits);
    cork();
    session.send(pdu.response({ message_id: id }));
    session.deliver_sm({
      source_addr_ton: pdu.dest_addr_ton,
      source_addr_npi: pdu.dest_addr_npi,
      source_addr: pdu.destination_addr,
      dest_addr_ton: pdu.source_addr_ton,
      dest_addr_npi: pdu.source_addr_npi,
      destination_addr: pdu.source_addr,
      esm_class: 0x04,
      short_message: receiptText(id, smppMinute(new Date())),
    });
  });
  session.on("error", () => undefined); // a peer that drops the connection mid-run is its own problem
});

server.listen(Number(process.env.SMSC_PORT ?? 0), "127.0.0.1", () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.stdin.on("data", (chunk: Buffer) => {
  if (chunk.toString().includes("count")) process.stdout.write(`count ${submits} ${bound}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
