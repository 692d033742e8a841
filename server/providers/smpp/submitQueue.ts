// The line of submit_sm of one SMPP session (connection.ts owns the session): a window of at most
// `maxInFlight` unacknowledged submits and at most `maxPerSecond` submits a second, slowed down when the SMSC
// throttles (see "Throttling" below).
import type { PDU } from "smpp";
import type { Logger } from "../../logger.js";
import type { GuardedSession } from "./guardedSession.js";
import { throttledTotal } from "./smppMetrics.js";
import { SubmitRate } from "./submitRate.js";

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

/** What the line needs of its session: the session to write on while bound, and one request on it. */
export interface SubmitLink {
  /** The bound session, or undefined while there is none (its end settles the line: `abandon`). */
  bound(): GuardedSession | undefined;
  /** Sends one request PDU; `done` gets its answer or the error that ended it (connection.ts, request). */
  request(
    session: GuardedSession,
    command: string,
    fields: Record<string, unknown>,
    done: (error: Error | undefined, response?: PDU) => void,
  ): void;
}

export interface SubmitQueueOptions {
  maxInFlight: number;
  maxPerSecond: number;
  /** After a throttle answer nothing is written for this long. */
  throttlePauseMs: number;
  log: Logger;
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

export class SubmitQueue {
  inFlight = 0;
  /** The submit rate now: SMPP_MAX_PER_SECOND, less while the SMSC throttles. */
  readonly rate: SubmitRate;
  /** No submit_sm is written before this (ms since the epoch): the pause after a throttle. */
  pausedUntil = 0;
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

  constructor(
    private readonly link: SubmitLink,
    private readonly opts: SubmitQueueOptions,
  ) {
    this.rate = new SubmitRate(opts.maxPerSecond);
  }

  /** Submits waiting to be written (first time or again after a throttle). */
  get waiting(): number {
    return this.queue.length;
  }

  /** The session ended: those still in line were never written on it (or the SMSC throttled them): not handed over. */
  abandon(): void {
    clearTimeout(this.pumpTimer);
    for (const submit of this.queue.splice(0)) this.settle(submit, new NotBound(`SMPP session ended before the submit_sm was written`));
  }

  /**
   * Takes `n` submits' worth of the rate now, resolving when all of them may go: a window of messages claimed
   * after this is written at once, not paced one by one while it already counts as on the wire. After a throttle
   * this is where new windows wait (their messages still `scheduled`, cancellable): the pause and the lower rate
   * count here.
   */
  async reserveRate(n: number): Promise<void> {
    const last = this.reserveSlots(n).at(-1)!;
    const now = Date.now();
    if (last > now) await new Promise((r) => setTimeout(r, last - now));
  }

  /**
   * Takes `n` submits' worth of the rate now, as reserveRate, and returns when each slot comes (ms since the
   * epoch, in order) instead of waiting for the last: a caller that marks and writes its messages a few at a
   * time, each when its slot comes, writes the first at once (providers/failover.ts).
   */
  reserveSlots(n: number): number[] {
    const interval = this.rate.intervalMs;
    const first = Math.max(Date.now(), this.nextSlotAt, this.pausedUntil);
    const slots = Array.from({ length: Math.max(1, n) }, (_, i) => first + i * interval);
    this.nextSlotAt = slots.at(-1)! + interval;
    this.prepaid += n;
    return slots;
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
    if (!this.link.bound()) return Promise.reject(new NotBound("SMPP not bound"));
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
        const session = this.link.bound();
        if (!session) return; // the session's end settles the line
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
    if (submit.throttles > 0) this.retrying.add(submit);
    let fields: Record<string, unknown>;
    try {
      fields = submit.fields();
    } catch (error) {
      this.answered(submit, error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.link.request(session, "submit_sm", fields, (error, response) => this.answered(submit, error, response));
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
    this.pausedUntil = now + this.opts.throttlePauseMs;
    this.nextSlotAt = this.pausedUntil;
    // Windows claimed (or about to be) at the old rate are paced at the new one: their prepaid slots lapse.
    this.prepaid = 0;
    for (const waiting of this.queue) {
      waiting.prepaid = false;
      waiting.slotAt = undefined;
    }
    this.opts.log.warn(
      { status: reason, ratePerSecond: this.rate.current, pauseMs: this.opts.throttlePauseMs, waiting: this.queue.length },
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
}
