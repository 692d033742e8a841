// One SMPP 3.4 transceiver session to the carrier, kept bound; its submits go through a line of their own
// (submitQueue.ts: the window, the rate, throttling). The `smpp` package does the PDUs, read and written through
// GuardedSession (guardedSession.ts).
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
import { sessionEnds } from "./smppMetrics.js";
import { ConnectionLost, NotBound, SubmitQueue } from "./submitQueue.js";

export { ConnectionLost, NotBound, THROTTLED_STATUSES, WaitedTooLong } from "./submitQueue.js";

export type BindState = "connecting" | "bound" | "disconnected" | "stopped";

export interface ConnectionOptions {
  url: string;
  systemType?: string;
  maxInFlight: number;
  maxPerSecond: number;
  /** A submit_sm, enquire_link or bind (from the TCP connect on) unanswered for this long ends the session. */
  responseTimeoutMs?: number;
  /** Period of enquire_link on a bound session. */
  enquireLinkMs?: number;
  /** After a throttle answer nothing is written for this long (default 1000). */
  throttlePauseMs?: number;
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
  /** Why the last session ended or failed to bind (shown on the connector), or null. */
  lastError: string | null = null;
  private session: GuardedSession | undefined;
  private backoffMs = MIN_BACKOFF_MS;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private sessionTimers: NodeJS.Timeout[] = [];
  private readonly requests = new Set<InFlight>();
  private readonly submits: SubmitQueue;
  private readonly responseTimeoutMs: number;
  private readonly enquireLinkMs: number;

  constructor(private readonly opts: ConnectionOptions) {
    this.responseTimeoutMs = opts.responseTimeoutMs ?? 10_000;
    this.enquireLinkMs = opts.enquireLinkMs ?? 30_000;
    this.submits = new SubmitQueue(
      {
        bound: () => (this.state === "bound" ? this.session : undefined),
        request: (session, command, fields, done) => this.request(session, command, fields, done),
      },
      { maxInFlight: opts.maxInFlight, maxPerSecond: opts.maxPerSecond, throttlePauseMs: opts.throttlePauseMs ?? 1000, log: opts.log },
    );
  }

  /** Submits awaiting submit_sm_resp. */
  get inFlight(): number {
    return this.submits.inFlight;
  }
  /** The submit rate now: SMPP_MAX_PER_SECOND, less while the SMSC throttles. */
  get rate() {
    return this.submits.rate;
  }
  /** Submits waiting to be written (first time or again after a throttle). */
  get waiting(): number {
    return this.submits.waiting;
  }

  start(): void {
    this.connect();
  }

  private connect(): void {
    if (this.state === "stopped") return;
    this.state = "connecting";
    const url = new URL(this.opts.url);
    const session = new GuardedSession({ host: url.hostname, port: Number(url.port || 2775) });
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
    session.on("error", (error: Error) => {
      session.error ??= error.message;
      this.opts.log.warn({ err: error }, "SMPP connection error");
    });
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
    // A socket error (ECONNREFUSED) says more than the "closed" that follows it.
    if (reason !== "stopped") this.lastError = session.error ?? `${reason}: ${detail}`;
    // The writes still buffered in this process report their failure before the socket's "close": settle after
    // it, so a submit_sm whose bytes never left is known as such.
    const inFlight = [...this.requests];
    this.requests.clear();
    const settle = () => {
      for (const request of inFlight) request.fail();
    };
    if (reason === "closed") settle();
    else session.socket.once("close", settle);
    this.submits.abandon();
    if (this.state === "stopped") return;
    this.state = "disconnected";
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, MAX_BACKOFF_MS);
    this.opts.log.warn({ reason, detail, inFlight: inFlight.length, reconnectInMs: delay }, "SMPP session ended; reconnecting");
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  private enquireLink(session: GuardedSession): void {
    this.request(session, "enquire_link", {}, () => undefined); // a timeout ends the session itself
  }

  /**
   * Sends one request PDU; `done` gets its response, synchronously as it is read (so what the response decides
   * is decided before anything else is written). No response within the response timeout ends the session;
   * the session ending calls `done` with ConnectionLost, or NotBound when the PDU never reached the socket. A
   * PDU that cannot be encoded calls `done` with that error.
   */
  private request(
    session: GuardedSession,
    command: string,
    fields: Record<string, unknown>,
    done: (error: Error | undefined, response?: PDU) => void,
  ): void {
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
        done(
          written
            ? new ConnectionLost(`SMPP session ended while waiting for ${command}_resp`)
            : new NotBound(`SMPP session ended before the ${command} was written`),
        );
      },
    };
    this.requests.add(request);
    let queued: boolean;
    try {
      queued = session.send(
        new smpp.PDU(command, fields),
        (response) => {
          clearTimeout(timer);
          if (!this.requests.delete(request)) return;
          this.backoffMs = MIN_BACKOFF_MS; // this session answers: the next drop reconnects quickly
          done(undefined, response);
        },
        (_pdu, error) => {
          if (error) written = false;
        },
      );
    } catch (error) {
      clearTimeout(timer);
      this.requests.delete(request);
      done(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (!queued) {
      clearTimeout(timer);
      this.requests.delete(request);
      done(new NotBound(`SMPP socket not writable; ${command} not sent`));
    }
  }

  /** The line's rate slots for `n` submits, resolving when all of them may go (submitQueue.ts). */
  reserveRate(n: number): Promise<void> {
    return this.submits.reserveRate(n);
  }

  reserveSlots(n: number): number[] {
    return this.submits.reserveSlots(n);
  }

  /** One submit_sm, written in its place in line (submitQueue.ts says how). */
  submit(fields: Record<string, unknown> | (() => Record<string, unknown>), opts: { deadline?: number } = {}): Promise<PDU> {
    if (this.state !== "bound") return Promise.reject(new NotBound(`SMPP not bound (${this.state})`));
    return this.submits.submit(fields, opts);
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
