// One SMPP 3.4 transceiver session to the carrier, kept bound: a window of at most `maxInFlight`
// unacknowledged submits and at most `maxPerSecond` submits a second. The `smpp` package does the PDUs, read
// and written through GuardedSession (guardedSession.ts).
//
// The session cannot wedge: it ends, and reconnects with exponential backoff (1 s to 60 s, back to 1 s once a
// new session has answered a request), when the SMSC sends a PDU that cannot be parsed, when a submit_sm,
// enquire_link or bind goes unanswered for `responseTimeoutMs` (an enquire_link is sent every
// `enquireLinkMs`), or when the TCP connection drops. Ending it settles every request in flight: a submit_sm
// whose bytes reached the socket is an unknown outcome (ConnectionLost); one that never did is NotBound, so
// the message goes back to be sent.
import smpp, { type PDU } from "smpp";
import type { Logger } from "../../logger.js";
import { GuardedSession, type MalformedPdu } from "./guardedSession.js";
import { sessionEnds } from "./metrics.js";

export type BindState = "connecting" | "bound" | "disconnected" | "stopped";

/** The submit_sm was certainly not handed to the SMSC (not bound, or never written to the socket). */
export class NotBound extends Error {}
/** The connection dropped after the PDU was written: whether the carrier took it is unknown. */
export class ConnectionLost extends Error {}

export interface ConnectionOptions {
  url: string;
  systemType?: string;
  maxInFlight: number;
  maxPerSecond: number;
  /** A submit_sm, enquire_link or bind (from the TCP connect on) unanswered for this long ends the session. */
  responseTimeoutMs?: number;
  /** Period of enquire_link on a bound session. */
  enquireLinkMs?: number;
  log: Logger;
  /**
   * Persist a deliver_sm or data_sm (a receipt or an inbound message) durably; it is acknowledged OK only after
   * this resolves, and with ESME_RSYSERR if it rejects, so the SMSC sends it again.
   */
  onDeliver: (pdu: PDU) => Promise<void>;
}

const MIN_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;

interface InFlight {
  /** Settles the request as the session ends. */
  fail(): void;
}

export class SmppConnection {
  state: BindState = "disconnected";
  inFlight = 0;
  maxObservedInFlight = 0;
  private session: GuardedSession | undefined;
  private backoffMs = MIN_BACKOFF_MS;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private sessionTimers: NodeJS.Timeout[] = [];
  private readonly waiting: (() => void)[] = [];
  private readonly requests = new Set<InFlight>();
  private nextSlotAt = 0;
  /** Submits whose rate slot reserveRate already took. */
  private prepaid = 0;
  private readonly responseTimeoutMs: number;
  private readonly enquireLinkMs: number;

  constructor(private readonly opts: ConnectionOptions) {
    this.responseTimeoutMs = opts.responseTimeoutMs ?? 10_000;
    this.enquireLinkMs = opts.enquireLinkMs ?? 30_000;
  }

  start(): void {
    this.connect();
  }

  private connect(): void {
    if (this.state === "stopped") return;
    this.state = "connecting";
    const url = new URL(this.opts.url);
    const session = new GuardedSession(url.hostname, Number(url.port || 2775));
    this.session = session;
    // The TCP connect and the bind together get one response timeout.
    const bindTimer = setTimeout(
      () => this.endSession(session, "bind_timeout", `no bind_transceiver_resp within ${this.responseTimeoutMs} ms`),
      this.responseTimeoutMs,
    );
    this.sessionTimers.push(bindTimer);
    session.on("connect", () => {
      session.bind_transceiver(
        {
          system_id: decodeURIComponent(url.username),
          password: decodeURIComponent(url.password),
          system_type: this.opts.systemType ?? "",
        },
        (pdu) => {
          clearTimeout(bindTimer);
          if (this.session !== session) return;
          if (pdu.command_status === 0) {
            this.state = "bound";
            this.opts.log.info({ smsc: url.host }, "SMPP bound as transceiver");
            this.sessionTimers.push(setInterval(() => this.enquireLink(session), this.enquireLinkMs));
          } else {
            this.endSession(session, "bind_refused", `bind refused with status ${pdu.command_status}`);
          }
        },
      );
    });
    const deliver = (pdu: PDU) => {
      this.opts.onDeliver(pdu).then(
        () => session.send(pdu.response()),
        (error: unknown) => {
          // Not the error object: a database error's detail quotes the row, and so the message's text.
          const { message, code } = error as { message?: string; code?: string };
          this.opts.log.error(
            { error: message, code, command: pdu.command },
            "could not store an SMPP deliver_sm/data_sm; asking the SMSC to retry",
          );
          session.send(pdu.response({ command_status: smpp.errors.ESME_RSYSERR }));
        },
      );
    };
    session.on("deliver_sm", deliver);
    session.on("data_sm", deliver);
    session.on("enquire_link", (pdu: PDU) => session.send(pdu.response()));
    session.on("unknown", (pdu: PDU) => session.send(pdu.response())); // generic_nack, ESME_RINVCMDID
    session.on("unbind", (pdu: PDU) => {
      const end = () => this.endSession(session, "unbound_by_smsc", "the SMSC unbound");
      if (!session.send(pdu.response(), undefined, end)) end();
    });
    session.on("malformed", (error: MalformedPdu) => this.endSession(session, "malformed_pdu", error.message));
    session.on("error", (error: Error) => this.opts.log.warn({ err: error }, "SMPP connection error"));
    session.on("close", () => this.endSession(session, "closed", "connection closed"));
  }

  /**
   * Ends `session` (if it is still the current one): destroys its socket, settles what was in flight and, unless
   * stopped, reconnects after the backoff. Idempotent.
   */
  private endSession(session: GuardedSession, reason: string, detail: string): void {
    if (this.session !== session) return;
    this.session = undefined;
    for (const timer of this.sessionTimers.splice(0)) clearTimeout(timer);
    session.destroy();
    sessionEnds.inc({ reason });
    // The writes still buffered in this process report their failure before the socket's "close": settle after
    // it, so a submit_sm whose bytes never left is known as such.
    const inFlight = [...this.requests];
    this.requests.clear();
    const settle = () => {
      for (const request of inFlight) request.fail();
    };
    if (reason === "closed") settle();
    else session.socket.once("close", settle);
    if (this.state === "stopped") return;
    this.state = "disconnected";
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
    this.opts.log.warn({ reason, detail, inFlight: inFlight.length, reconnectInMs: delay }, "SMPP session ended; reconnecting");
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  private enquireLink(session: GuardedSession): void {
    this.request(session, "enquire_link", {}).catch(() => undefined); // a timeout ends the session itself
  }

  /**
   * Sends one request PDU and resolves with its response. No response within the response timeout ends the
   * session; the session ending rejects with ConnectionLost, or NotBound when the PDU never reached the socket.
   */
  private request(session: GuardedSession, command: string, fields: Record<string, unknown>): Promise<PDU> {
    return new Promise<PDU>((resolve, reject) => {
      let written = true; // until the write reports an error: an unknown outcome is the safe assumption
      const timer = setTimeout(() => {
        // Decide after this turn's I/O: a response read late because the event loop was busy still counts.
        setImmediate(() => {
          if (this.requests.has(request))
            this.endSession(session, `${command}_timeout`, `no ${command}_resp within ${this.responseTimeoutMs} ms`);
        });
      }, this.responseTimeoutMs);
      const request: InFlight = {
        fail: () => {
          clearTimeout(timer);
          reject(
            written
              ? new ConnectionLost(`SMPP session ended while waiting for ${command}_resp`)
              : new NotBound(`SMPP session ended before the ${command} was written`),
          );
        },
      };
      this.requests.add(request);
      const queued = session.send(
        new smpp.PDU(command, fields),
        (response) => {
          clearTimeout(timer);
          if (!this.requests.delete(request)) return;
          this.backoffMs = MIN_BACKOFF_MS; // this session answers: the next drop reconnects quickly
          resolve(response);
        },
        (_pdu, error) => {
          if (error) written = false;
        },
      );
      if (!queued) {
        clearTimeout(timer);
        this.requests.delete(request);
        reject(new NotBound(`SMPP socket not writable; ${command} not sent`));
      }
    });
  }

  /**
   * Takes `n` submits' worth of the rate now, resolving when all of them may go: a window of messages claimed
   * after this is written at once, not paced one by one while it already counts as on the wire.
   */
  async reserveRate(n: number): Promise<void> {
    const interval = 1000 / this.opts.maxPerSecond;
    const now = Date.now();
    const last = Math.max(now, this.nextSlotAt) + (n - 1) * interval;
    this.nextSlotAt = last + interval;
    this.prepaid += n;
    if (last > now) await new Promise((r) => setTimeout(r, last - now));
  }

  private async acquire(): Promise<void> {
    while (this.inFlight >= this.opts.maxInFlight) await new Promise<void>((r) => this.waiting.push(r));
    this.inFlight++;
    this.maxObservedInFlight = Math.max(this.maxObservedInFlight, this.inFlight);
    if (this.prepaid > 0) {
      this.prepaid--;
      return;
    }
    const now = Date.now();
    const at = Math.max(now, this.nextSlotAt);
    this.nextSlotAt = at + 1000 / this.opts.maxPerSecond;
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
  }

  private release(): void {
    this.inFlight--;
    this.waiting.shift()?.();
  }

  /** Sends one submit_sm and resolves with its response PDU. */
  async submit(fields: Record<string, unknown>): Promise<PDU> {
    if (this.state !== "bound" || !this.session) throw new NotBound(`SMPP not bound (${this.state})`);
    await this.acquire();
    try {
      const session = this.session;
      if (this.state !== "bound" || !session) throw new NotBound(`SMPP not bound (${this.state})`);
      return await this.request(session, "submit_sm", fields);
    } finally {
      this.release();
    }
  }

  async stop(): Promise<void> {
    const wasBound = this.state === "bound";
    this.state = "stopped";
    clearTimeout(this.reconnectTimer);
    const session = this.session;
    if (!session) return;
    if (wasBound) {
      await new Promise<void>((resolve) => {
        const done = setTimeout(() => resolve(), 2000);
        const sent = session.unbind({}, () => {
          clearTimeout(done);
          resolve();
        });
        if (sent === false) resolve();
      });
    }
    this.endSession(session, "stopped", "worker stopping");
  }
}
