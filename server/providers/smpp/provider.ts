// PROVIDER=smpp: messages go to a carrier over SMPP 3.4 (see connection.ts for the session).
//
// submit: every segment is a submit_sm; the first segment's message_id is the message's providerMessageId.
// A segment answered ESME_RTHROTTLED / ESME_RMSGQFUL is not a failure: the connection slows down and writes it
// again later, in its place (connection.ts, "Throttling"), never counted as a failure. Not bound, or the first
// segment still throttled at its deadline (SMPP_THROTTLE_MAX_WAIT_MS, or the message's validUntil if sooner):
// the message was certainly not handed over and goes back to be sent (ProviderUnavailable). A later segment
// waits for the SMSC however long it throttles, so a message is never half sent and then resent. A permanent
// error fails the message with the SMPP error name as error.code. The connection dropping while a
// submit_sm_resp is awaited is an unknown outcome.
import smpp, { type PDU } from "smpp";
import { randomInt } from "node:crypto";
import type { Db } from "../../db/knex.js";
import type { Logger } from "../../logger.js";
import { ProviderUnavailable, type OutboundMessage, type Provider, type SubmitResult } from "../types.js";
import { NotBound, SmppConnection, WaitedTooLong } from "./connection.js";
import { registerSmppMetrics, submitsTotal, unregisterSmppMetrics } from "./smppMetrics.js";
import { relativeValidity, submitPdus } from "./pdus.js";
import { SendWindow } from "../window.js";

const ERROR_NAMES = new Map(Object.entries(smpp.errors).map(([name, code]) => [code, name]));

export interface SmppOptions {
  url: string;
  systemType?: string;
  maxInFlight: number;
  maxPerSecond: number;
  responseTimeoutMs?: number;
  enquireLinkMs?: number;
  /** After a throttle answer nothing is written for this long. */
  throttlePauseMs: number;
  /** The longest a message's first segment waits for a throttled link before it goes back to `scheduled`. */
  throttleMaxWaitMs: number;
  log: Logger;
  /** Stores a deliver_sm/data_sm durably (a receipt as a job, an inbound message or part); acknowledged after. */
  storeDelivered: (pdu: import("smpp").PDU) => Promise<void>;
}

export class SmppProvider implements Provider {
  readonly name = "smpp";
  readonly connection: SmppConnection;
  readonly link: string;
  /** The SMPP window in messages: a message is on the wire from its claim until its answer is recorded. */
  readonly window: SendWindow;
  private reference = randomInt(256);
  private readonly throttleMaxWaitMs: number;
  private readonly throttlePauseMs: number;

  constructor(
    private readonly db: Db,
    opts: SmppOptions,
  ) {
    this.throttleMaxWaitMs = opts.throttleMaxWaitMs;
    this.throttlePauseMs = opts.throttlePauseMs;
    this.connection = new SmppConnection({ ...opts, onDeliver: opts.storeDelivered });
    this.link = smppLink(opts.url);
    this.window = new SendWindow(opts.maxInFlight);
  }

  async start(): Promise<void> {
    registerSmppMetrics(this.connection);
    this.connection.start();
  }

  async stop(): Promise<void> {
    unregisterSmppMetrics(this.connection);
    await this.connection.stop();
  }

  /** Waits until a window of `n` messages may be written at once (the rate), before it is claimed. */
  async beforeClaim(n: number): Promise<void> {
    await this.connection.reserveRate(n);
  }

  /** The link's rate for `n` messages, taken now: when each may be written (submitQueue.ts, reserveSlots). */
  reserveSlots(n: number): number[] {
    return this.connection.reserveSlots(n);
  }

  async submit(message: OutboundMessage): Promise<SubmitResult> {
    const [result] = await this.submitBatch([message]);
    if (result instanceof Error) throw result;
    return result!;
  }

  /**
   * A window's messages: their submit_sm written in order on the session's line (submitQueue.ts). The carrier's
   * ids are recorded with the messages' `sent` (db/messages/statusChange.ts): a one-part message's on its row,
   * a multipart message's segments in smpp_segments.
   */
  async submitBatch(messages: OutboundMessage[]): Promise<(SubmitResult | Error)[]> {
    const written = await Promise.all(
      messages.map((m) => this.write(m).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))),
    );
    return written.map((w) =>
      w instanceof Error || !w.accepted
        ? w
        : { accepted: true, providerMessageId: w.segmentIds[0]!, ...(w.segmentIds.length > 1 ? { segmentIds: w.segmentIds } : {}) },
    );
  }

  /** Writes one message's segments in order; a refused segment ends it. */
  private async write(
    message: OutboundMessage,
  ): Promise<{ accepted: true; segmentIds: string[] } | Extract<SubmitResult, { accepted: false }>> {
    this.reference = (this.reference + 1) & 0xff;
    const pdus = submitPdus(message, this.reference);
    // The first segment waits for a throttled link until this; then the message goes back to `scheduled`. Past
    // its validUntil the claim will not take it again: it fails with validity_expired (services/validity.ts).
    const deadline = Math.min(Date.now() + this.throttleMaxWaitMs, message.validUntil?.getTime() ?? Infinity);
    const ids: string[] = [];
    for (const [i, pdu] of pdus.entries()) {
      // The validity left is counted when the PDU is written (again, after a throttle), not when it was made.
      const fields = message.validUntil ? () => ({ ...pdu, validity_period: relativeValidity(message.validUntil!) }) : pdu;
      let resp: PDU;
      try {
        resp = await this.connection.submit(fields, i === 0 ? { deadline } : {});
      } catch (error) {
        if (error instanceof NotBound && i === 0)
          throw error instanceof WaitedTooLong
            ? new ProviderUnavailable(error.message, this.throttlePauseMs, true)
            : new ProviderUnavailable(error.message, 1000);
        throw error;
      }
      const status = resp.command_status;
      submitsTotal.inc({ status: status === 0 ? "ok" : (ERROR_NAMES.get(status) ?? String(status)) });
      if (status !== 0) {
        const code = ERROR_NAMES.get(status) ?? `SMPP_0x${status.toString(16)}`;
        return { accepted: false, code, message: `The SMSC refused segment ${i + 1} of ${pdus.length} with ${code}.` };
      }
      ids.push(resp.message_id as string);
    }
    return { accepted: true, segmentIds: ids };
  }
}

/** The link's name: the SMSC and the system_id bound as (never the password). */
export function smppLink(url: string): string {
  const u = new URL(url);
  return `smpp://${decodeURIComponent(u.username)}@${u.host}`;
}
