// PROVIDER=smpp: messages go to a carrier over SMPP 3.4 (see connection.ts for the session).
//
// submit: every segment is a submit_sm; the first segment's message_id is the message's providerMessageId.
// Not bound, or the first segment throttled (ESME_RTHROTTLED / ESME_RMSGQFUL): the message was certainly
// not handed over and stays queued (ProviderUnavailable). A later segment throttled is retried after a pause,
// so a message is never half sent and then resent. A permanent error fails the message with the SMPP error
// name as error.code. The connection dropping while a submit_sm_resp is awaited is an unknown outcome.
import smpp, { type PDU } from "smpp";
import { randomInt } from "node:crypto";
import type { Db } from "../../db/knex.js";
import { insertSegments } from "../../db/smppSegments.js";
import type { Logger } from "../../logger.js";
import { ProviderUnavailable, type OutboundMessage, type Provider, type SubmitResult } from "../types.js";
import { NotBound, SmppConnection } from "./connection.js";
import { registerSmppMetrics, submitsTotal } from "./metrics.js";
import { submitPdus } from "./pdus.js";
import { SendWindow } from "../window.js";

const THROTTLED = new Set([smpp.errors.ESME_RTHROTTLED, smpp.errors.ESME_RMSGQFUL]);
const ERROR_NAMES = new Map(Object.entries(smpp.errors).map(([name, code]) => [code, name]));

export interface SmppOptions {
  url: string;
  systemType?: string;
  maxInFlight: number;
  maxPerSecond: number;
  responseTimeoutMs?: number;
  enquireLinkMs?: number;
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

  constructor(
    private readonly db: Db,
    opts: SmppOptions,
  ) {
    this.connection = new SmppConnection({ ...opts, onDeliver: opts.storeDelivered });
    this.link = smppLink(opts.url);
    this.window = new SendWindow(opts.maxInFlight);
  }

  async start(): Promise<void> {
    registerSmppMetrics(this.connection);
    this.connection.start();
  }

  async stop(): Promise<void> {
    await this.connection.stop();
  }

  /** Waits until a window of `n` messages may be written at once (the rate), before it is claimed. */
  async beforeClaim(n: number): Promise<void> {
    await this.connection.reserveRate(n);
  }

  async submit(message: OutboundMessage): Promise<SubmitResult> {
    this.reference = (this.reference + 1) & 0xff;
    const pdus = submitPdus(message, this.reference);
    const ids: string[] = [];
    for (const [i, pdu] of pdus.entries()) {
      for (let attempt = 1; ; attempt++) {
        let resp: PDU;
        try {
          resp = await this.connection.submit(pdu);
        } catch (error) {
          if (error instanceof NotBound && i === 0) throw new ProviderUnavailable(error.message, 1000);
          throw error;
        }
        submitsTotal.inc({
          status: resp.command_status === 0 ? "ok" : (ERROR_NAMES.get(resp.command_status) ?? String(resp.command_status)),
        });
        if (resp.command_status === 0) {
          ids.push(resp.message_id as string);
          break;
        }
        if (THROTTLED.has(resp.command_status)) {
          if (i === 0) throw new ProviderUnavailable(`SMSC throttled (${ERROR_NAMES.get(resp.command_status)})`, 1000 * attempt);
          if (attempt < 10) {
            await new Promise((r) => setTimeout(r, 500 * attempt));
            continue;
          }
        }
        const code = ERROR_NAMES.get(resp.command_status) ?? `SMPP_0x${resp.command_status.toString(16)}`;
        return { accepted: false, code, message: `The SMSC refused segment ${i + 1} of ${pdus.length} with ${code}.` };
      }
    }
    await insertSegments(this.db, message.messageId, ids);
    return { accepted: true, providerMessageId: ids[0]! };
  }
}

/** The link's name: the SMSC and the system_id bound as (never the password). */
export function smppLink(url: string): string {
  const u = new URL(url);
  return `smpp://${decodeURIComponent(u.username)}@${u.host}`;
}
