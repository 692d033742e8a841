// The `smpp` package's Session with its PDU reader and writer replaced. The package's reader, on a PDU it
// cannot parse (an 8-byte PDU, any command_length under 16), emits "error" and never reads again, and on a
// command_length under 4 waits for ever: the session looks alive while nothing is read. This reader checks
// the frame before parsing, and a PDU that cannot be framed or parsed emits "malformed" and destroys the
// socket, so the session ends ("close") and the connection reconnects. On the SMPP server's side (a client
// application's socket, `keepWholeFrames`), a whole frame that does not parse keeps the session: "malformed"
// carries its sequence_number, for the server's generic_nack, and reading goes on. The writer tells its caller whether the
// bytes reached the socket, so a PDU that never left this process is known not to have been sent.
import type { Socket } from "node:net";
import smpp, { type PDU } from "smpp";

const HEADER_LENGTH = 16;

export class MalformedPdu extends Error {
  constructor(
    message: string,
    /** The frame's sequence_number when the frame was whole (the session goes on), else undefined (it closed). */
    readonly sequenceNumber?: number,
  ) {
    super(message);
  }
}

export class GuardedSession extends smpp.Session {
  /** The 4-byte command_length of a PDU whose rest has not arrived yet. */
  private lengthField: Buffer | undefined;
  private reading = false;
  /** The first socket error of this session, if any (the connector's lastError). */
  error: string | undefined;

  private readonly keepWholeFrames: boolean;

  /** A client's session to `host:port`, or (`socket`) the server's session with a client application. */
  constructor(to: { host: string; port: number } | { socket: Socket; keepWholeFrames: true }) {
    super(to);
    this.keepWholeFrames = "keepWholeFrames" in to;
    // Every PDU written at once (TCP_NODELAY): with Nagle's algorithm a window's submit_sm and the
    // deliver_sm_resp of its receipts wait for the SMSC's delayed ACK, tens of ms a round (bench/NOTES.md,
    // "bench:smpp").
    this.socket.setNoDelay(true);
  }

  override _extractPDUs(): void {
    if (this.reading) return;
    this.reading = true;
    try {
      for (let pdu = this.readPdu(); pdu; pdu = this.paused ? undefined : this.readPdu()) {
        this.emit("pdu", pdu);
        this.emit(pdu.command, pdu);
        const callback = pdu.isResponse() ? this._callbacks[pdu.sequence_number] : undefined;
        if (callback) {
          delete this._callbacks[pdu.sequence_number];
          callback(pdu);
        }
      }
    } finally {
      this.reading = false;
    }
  }

  /** The next whole PDU on the socket, or undefined when none is complete yet (or the PDU was malformed). */
  private readPdu(): PDU | undefined {
    if (this.paused || this.socket.destroyed) return undefined;
    if (!this.lengthField) {
      const field = this.socket.read(4) as Buffer | null;
      // At the end of the stream read() hands over what is left, maybe less than asked: a PDU cut off by the
      // connection closing is dropped, and "close" ends the session.
      if (!field || field.length < 4) return undefined;
      const length = field.readUInt32BE(0);
      if (length < HEADER_LENGTH || length > smpp.PDU.maxLength) {
        return this.reject(`command_length ${length} is outside ${HEADER_LENGTH}..${smpp.PDU.maxLength}`);
      }
      this.lengthField = field;
    }
    const rest = this.socket.read(this.lengthField.readUInt32BE(0) - 4) as Buffer | null;
    if (!rest || rest.length < this.lengthField.readUInt32BE(0) - 4) return undefined;
    const bytes = Buffer.concat([this.lengthField, rest]);
    this.lengthField = undefined;
    try {
      return new smpp.PDU(bytes);
    } catch (error) {
      const reason = `unparseable PDU ${bytes.subarray(0, 32).toString("hex")}: ${(error as Error).message}`;
      if (!this.keepWholeFrames) return this.reject(reason);
      this.emit("malformed", new MalformedPdu(reason, bytes.readUInt32BE(12)));
      return this.readPdu();
    }
  }

  private reject(reason: string): undefined {
    this.emit("malformed", new MalformedPdu(reason));
    this.socket.destroy();
    return undefined;
  }

  /**
   * As the package's send, but `sendCallback` gets the write's error: an error means the PDU did not reach the
   * socket (the session was destroyed first). Returns false, registering nothing, when the socket is not writable.
   */
  override send(pdu: PDU, responseCallback?: (pdu: PDU) => void, sendCallback?: (pdu: PDU, error?: Error) => void): boolean {
    if (!this.socket.writable) return false;
    if (!pdu.isResponse() && !pdu.sequence_number) {
      if (this.sequence === 0x7fffffff) this.sequence = 0;
      pdu.sequence_number = ++this.sequence;
    }
    const bytes = pdu.toBuffer(); // may throw on a bad field: then nothing is registered or sent
    if (!pdu.isResponse() && responseCallback) this._callbacks[pdu.sequence_number] = responseCallback;
    else if (pdu.isResponse() && responseCallback && !sendCallback) sendCallback = responseCallback;
    this.socket.write(bytes, (error) => {
      if (!error) this.emit("send", pdu);
      sendCallback?.(pdu, error ?? undefined);
    });
    return true;
  }
}
