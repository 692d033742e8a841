// One SMPP 3.4 transceiver session to the carrier, kept bound: a window of at most `maxInFlight`
// unacknowledged submits and at most `maxPerSecond` submits a second, slowed down when the SMSC throttles (see
// "Throttling" below). The `smpp` package does the PDUs, read and written through GuardedSession
// (guardedSession.ts).
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
import { sessionEnds, throttledTotal } from "./metrics.js";
import { SubmitRate } from "./submitRate.js";

export type BindState = "connecting" | "bound" | "disconnected" | "stopped";

/** The submit_sm was certainly not handed to the SMSC (not bound, or never written to the socket). */
export class NotBound extends Error {}
/** The connection dropped after the PDU was written: whether the carrier took it is unknown. */
export class ConnectionLost extends Error {}
/**
 * The submit_sm waited for a throttled link until its deadline: it was never written, or every time it was the
 * SMSC answered ESME_RTHROTTLED / ESME_RMSGQFUL, so the SMSC certainly does not have it.
 */
export class WaitedTooLong extends NotBound {}

/** The answers that mean "not now, too fast": the submit is written again later, in its place. */
export const THROTTLED_STATUSES: ReadonlyMap<number, string> = new Map([
  [0x58, "ESME_RTHROTTLED"],
  [0x14, "ESME_RMSGQFUL"],
]);

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

/** A submit_sm asked for and not yet answered (other than throttled). */
interface Submit {
  /** Its place in line: the order `submit` was called in. */
  ticket: number;
  /** The PDU's fields, made when it is written (so a validity_period is counted from then). */
  fields: () => Record<string, unknown>;
  /** Its rate slot was taken by reserveRate before its message was claimed. */
  prepaid: boolean;
  /** When its rate slot comes, once it has taken one (at the head of the line). */
  slotAt?: number;
  /** Past this (ms since the epoch) it leaves the line with WaitedTooLong instead of being written (again). */
  deadline: number;
  /** Throttle answers it has had. */
  throttles: number;
  /** The rate's epoch when it was last written. */
  epoch: number;
  settled: boolean;
  resolve(pdu: PDU): void;
  reject(error: Error): void;
  timer?: NodeJS.Timeout;
}

export class SmppConnection {
  state: BindState = "disconnected";
  inFlight = 0;
  maxObservedInFlight = 0;
  private session: GuardedSession | undefined;
  private backoffMs = MIN_BACKOFF_MS;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private sessionTimers: NodeJS.Timeout[] = [];
  /** The submit rate now: SMPP_MAX_PER_SECOND, less while the SMSC throttles. */
  readonly rate: SubmitRate;
  /** No submit_sm is written before this (ms since the epoch): the pause after a throttle. */
  pausedUntil = 0;
  private readonly requests = new Set<InFlight>();
  /** Submits not written yet (or throttled and to be written again), in ticket order. */
  private readonly queue: Submit[] = [];
  /** Submits on the wire again after a throttle: nothing behind one of them is written until it is answered. */
  private readonly retrying = new Set<Submit>();
  private tickets = 0;
  private pumping = false;
  private pumpTimer: NodeJS.Timeout | undefined;
  private nextSlotAt = 0;
  /** Submits whose rate slot reserveRate already took. */
  private prepaid = 0;
  private readonly responseTimeoutMs: number;
  private readonly enquireLinkMs: number;
  private readonly throttlePauseMs: number;

  constructor(private readonly opts: ConnectionOptions) {
    this.responseTimeoutMs = opts.responseTimeoutMs ?? 10_000;
    this.enquireLinkMs = opts.enquireLinkMs ?? 30_000;
    this.throttlePauseMs = opts.throttlePauseMs ?? 1000;
    this.rate = new SubmitRate(opts.maxPerSecond);
  }

  /** Submits waiting to be written (first time or again after a throttle). */
  get waiting(): number {
    return this.queue.length;
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
    // Those still in line were never written on this session (or the SMSC throttled them): not handed over.
    clearTimeout(this.pumpTimer);
    for (const submit of this.queue.splice(0)) this.settle(submit, new NotBound(`SMPP session ended before the submit_sm was written`));
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

  /**
   * Takes `n` submits' worth of the rate now, resolving when all of them may go: a window of messages claimed
   * after this is written at once, not paced one by one while it already counts as on the wire. After a throttle
   * this is where new windows wait (their messages still `scheduled`, cancellable): the pause and the lower rate
   * count here.
   */
  async reserveRate(n: number): Promise<void> {
    const interval = this.rate.intervalMs;
    const now = Date.now();
    const last = Math.max(now, this.nextSlotAt, this.pausedUntil) + (n - 1) * interval;
    this.nextSlotAt = last + interval;
    this.prepaid += n;
    if (last > now) await new Promise((r) => setTimeout(r, last - now));
  }

  /**
   * Sends one submit_sm and resolves with its response PDU: accepted, or refused for a reason other than the
   * rate. A throttle answer (ESME_RTHROTTLED, ESME_RMSGQFUL) is not returned: the submit is written again, in its
   * place (below). Rejects with NotBound (never handed over: not bound, never written, or past `deadline` while
   * throttled, WaitedTooLong) or ConnectionLost (written, then the session ended: unknown outcome).
   *
   * `fields` may be a function: it is called each time the PDU is written.
   */
  submit(fields: Record<string, unknown> | (() => Record<string, unknown>), opts: { deadline?: number } = {}): Promise<PDU> {
    if (this.state !== "bound" || !this.session) return Promise.reject(new NotBound(`SMPP not bound (${this.state})`));
    return new Promise<PDU>((resolve, reject) => {
      const prepaid = this.prepaid > 0;
      if (prepaid) this.prepaid--;
      const submit: Submit = {
        ticket: ++this.tickets,
        fields: typeof fields === "function" ? fields : () => fields,
        prepaid,
        deadline: opts.deadline ?? Infinity,
        throttles: 0,
        epoch: this.rate.epoch,
        settled: false,
        resolve,
        reject,
      };
      if (Number.isFinite(submit.deadline)) {
        // Still in line at its deadline (not on the wire): it leaves the line. On the wire, its answer decides.
        submit.timer = setTimeout(() => this.giveUpIfWaiting(submit), Math.max(0, submit.deadline - Date.now()));
      }
      this.queue.push(submit); // tickets only grow: the line stays in ticket order
      this.pump();
    });
  }

  // Throttling. Every submit_sm gets a ticket when `submit` is called: for a window, its messages in claim
  // order (the send handler submits them in that order), then each later segment when the one before it was
  // accepted. Submits are written in ticket order, paced by the rate. A throttled submit goes back into the
  // line at its ticket's place, ahead of everything not yet written, and while it is on the wire again nothing
  // with a later ticket is written (one submit probes the SMSC at a time). So it is accepted before any submit
  // that was not yet written when its throttle answer was read; only those written while it was on the wire the
  // first time (at most the window, SMPP_MAX_IN_FLIGHT - 1) can get in before it. The cost is throughput while
  // the SMSC throttles: retries go one at a time, which the lowered rate mostly asks for anyway; and a submit the
  // SMSC keeps refusing holds the line behind it until its deadline (an ESME_RMSGQFUL that really means one
  // handset's queue is full slows every message: the contract reads both codes as "too fast").
  // The wait is bounded: a submit with a deadline (a message's first segment) still throttled then leaves with
  // WaitedTooLong, and its message goes back to `scheduled`. A later segment has none: its message is half
  // sent, and sending it again from the start or failing it would both be worse than waiting for the SMSC.

  /** Writes what may be written now, in ticket order; arms a timer for the next slot or the pause's end. */
  private pump(): void {
    if (this.pumping) return;
    this.pumping = true;
    try {
      clearTimeout(this.pumpTimer);
      this.pumpTimer = undefined;
      while (this.queue.length > 0) {
        const session = this.session;
        if (this.state !== "bound" || !session) return; // the session's end settles the line
        if (this.inFlight >= this.opts.maxInFlight) return; // an answer pumps again
        const head = this.queue[0]!;
        for (const retry of this.retrying) if (retry.ticket < head.ticket) return; // its answer pumps again
        const now = Date.now();
        if (!head.prepaid && head.slotAt === undefined) {
          head.slotAt = Math.max(now, this.nextSlotAt, this.pausedUntil);
          this.nextSlotAt = head.slotAt + this.rate.intervalMs;
        }
        const at = Math.max(this.pausedUntil, head.slotAt ?? 0);
        if (at > now) {
          this.pumpTimer = setTimeout(() => this.pump(), at - now);
          return;
        }
        this.queue.shift();
        this.write(session, head);
      }
    } finally {
      this.pumping = false;
    }
  }

  private write(session: GuardedSession, submit: Submit): void {
    submit.epoch = this.rate.epoch;
    this.inFlight++;
    this.maxObservedInFlight = Math.max(this.maxObservedInFlight, this.inFlight);
    if (submit.throttles > 0) this.retrying.add(submit);
    let fields: Record<string, unknown>;
    try {
      fields = submit.fields();
    } catch (error) {
      this.answered(submit, error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.request(session, "submit_sm", fields, (error, response) => this.answered(submit, error, response));
  }

  /** A written submit's answer, or the error that ended it; runs as the answer is read. */
  private answered(submit: Submit, error: Error | undefined, response?: PDU): void {
    this.inFlight--;
    this.retrying.delete(submit);
    const reason = response && THROTTLED_STATUSES.get(response.command_status);
    if (error || !response) this.settle(submit, error ?? new Error("no submit_sm_resp"));
    else if (reason) {
      submit.throttles++;
      throttledTotal.inc({ reason });
      if (this.rate.throttled(submit.epoch)) this.slowDown(reason);
      if (Date.now() >= submit.deadline) this.settle(submit, this.waitedTooLong(submit, reason));
      else this.requeue(submit);
    } else {
      this.rate.succeeded(submit.epoch);
      this.settle(submit, undefined, response);
    }
    this.pump();
  }

  /** After the first throttle of an epoch: a pause, then everything in line paced at the lowered rate. */
  private slowDown(reason: string): void {
    const now = Date.now();
    this.pausedUntil = now + this.throttlePauseMs;
    this.nextSlotAt = this.pausedUntil;
    // Windows claimed (or about to be) at the old rate are paced at the new one: their prepaid slots lapse.
    this.prepaid = 0;
    for (const waiting of this.queue) {
      waiting.prepaid = false;
      waiting.slotAt = undefined;
    }
    this.opts.log.warn(
      { status: reason, ratePerSecond: this.rate.current, pauseMs: this.throttlePauseMs, waiting: this.queue.length },
      "SMSC throttled: pausing and slowing down",
    );
  }

  /** Back into the line at its ticket's place: before every submit not yet written that was asked for after it. */
  private requeue(submit: Submit): void {
    submit.prepaid = false;
    submit.slotAt = undefined;
    let i = this.queue.findIndex((other) => other.ticket > submit.ticket);
    if (i < 0) i = this.queue.length;
    this.queue.splice(i, 0, submit);
  }

  private giveUpIfWaiting(submit: Submit): void {
    const i = this.queue.indexOf(submit);
    if (i < 0) return; // on the wire: its answer decides
    this.queue.splice(i, 1);
    this.settle(submit, this.waitedTooLong(submit));
    this.pump();
  }

  private waitedTooLong(submit: Submit, reason?: string): WaitedTooLong {
    const last = reason ? `; the SMSC's last answer was ${reason}` : "";
    return new WaitedTooLong(
      `submit_sm waited for the throttled SMPP link until its deadline (${submit.throttles} throttle answers${last})`,
    );
  }

  private settle(submit: Submit, error: Error | undefined, response?: PDU): void {
    if (submit.settled) return;
    submit.settled = true;
    clearTimeout(submit.timer);
    if (error) submit.reject(error);
    else submit.resolve(response!);
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
