// One client application's SMPP session with the server (docs/SMPP.md, "For client applications"). Its life:
// open (connected, not bound: only a bind, enquire_link or unbind is answered) → bound as transmitter, receiver
// or transceiver (its bind recorded in smpp_binds, counted against maxBinds on every process) → closed (unbind,
// the credentials deleted, the server stopping, a silent or broken link: its bind row deleted). This file owns
// that state; index.ts owns the sessions of a process.
import { randomUUID } from "node:crypto";
import type { Socket } from "node:net";
import smpp, { type PDU } from "smpp";
import type { Db } from "../db/knex.js";
import { giveSmppId } from "../db/smppMessageIds.js";
import { DomainError } from "../domain/errors.js";
import type { Logger } from "../logger.js";
import { addressAllowed, checkSmppLogin, deleteSmppBind, getAccount, recordSmppBind, type SmppCredentialRow } from "../operator/index.js";
import { GuardedSession, type MalformedPdu } from "../providers/smpp/guardedSession.js";
import { scheduleMessage } from "../services/messages.js";
import { submitPart } from "../services/smppParts.js";
import { formatId, sendRequestOf, statusOfRefusal, SubmitRefused } from "./submitSm.js";
import type { DeploymentDestinations } from "../domain/sendingGuards.js";

export interface SessionContext {
  db: Db;
  log: Logger;
  serverId: string;
  /** The service's own system_id, in bind responses. */
  systemId: string;
  destinations: DeploymentDestinations;
  defaultCountry: string | undefined;
  /** How long the client may stay silent before the server checks it with an enquire_link. */
  enquireLinkMs: number;
  /** How long an enquire_link of the server may go unanswered before the session is closed. */
  responseTimeoutMs: number;
  /** At most this many incomplete multipart messages per account (SMPP_SERVER_MAX_OPEN_PARTS). */
  maxOpenParts: number;
  /** Told when the session ends. */
  closed(session: ClientSession): void;
  /** Told each submit_sm's outcome, for the process's counts (smpp_server_counters). */
  counted(accountId: string, outcome: "accepted" | "refused" | "throttled"): void;
}

/** How long a session trusts the account it read (its suspension takes effect within this). */
const ACCOUNT_TTL_MS = 1000;

type Mode = "transmitter" | "receiver" | "transceiver";
const BIND_MODES: Record<string, Mode> = {
  bind_transmitter: "transmitter",
  bind_receiver: "receiver",
  bind_transceiver: "transceiver",
};

/** The requests the server answers with their own `_resp`; any other is answered generic_nack ESME_RINVCMDID. */
const SERVED: ReadonlySet<string> = new Set([...Object.keys(BIND_MODES), "enquire_link", "unbind", "submit_sm"]);

export class ClientSession {
  readonly id = randomUUID();
  private readonly session: GuardedSession;
  private bound: { credential: SmppCredentialRow; mode: Mode } | undefined;
  /** The per-bind throttle: when the submits taken so far are paid off at submitsPerSecond (ms). */
  private throttleTat = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private ended = false;
  /** The bound account as last read, and until when it is trusted (ACCOUNT_TTL_MS). */
  private account: { row: Awaited<ReturnType<typeof getAccount>>; until: number } | undefined;
  private readonly log: Logger;

  constructor(
    socket: Socket,
    private readonly ctx: SessionContext,
  ) {
    this.log = ctx.log.child({ smppSession: this.id, remote: socket.remoteAddress });
    this.session = new GuardedSession({ socket, keepWholeFrames: true });
    socket.setNoDelay(true);
    this.session.on("pdu", (pdu: PDU) => this.onPdu(pdu));
    this.session.on("malformed", (error: MalformedPdu) => this.onMalformed(error));
    this.session.on("error", (error: Error) => this.log.debug({ err: error }, "SMPP client socket error"));
    this.session.on("close", () => void this.end("closed by the client"));
    this.armIdleCheck();
  }

  get systemId(): string | undefined {
    return this.bound?.credential.systemId;
  }

  /** The account of a bound receiver or transceiver with room in its window, else undefined. */
  get receiverOf(): string | undefined {
    const b = this.bound;
    if (!b || b.mode === "transmitter" || this.ended || this.outstanding >= b.credential.window) return undefined;
    return b.credential.accountId;
  }

  /** Room left in the window towards this receiver. */
  get room(): number {
    return this.bound ? Math.max(0, this.bound.credential.window - this.outstanding) : 0;
  }

  /** deliver_sm PDUs sent and not yet answered. */
  private outstanding = 0;

  /**
   * Sends a deliver_sm; resolves true when the client answered it with status 0, false when it refused it, did
   * not answer within the response timeout, or the session ended.
   */
  deliver(fields: Record<string, unknown>): Promise<boolean> {
    if (this.ended) return Promise.resolve(false);
    this.outstanding++;
    return new Promise<boolean>((resolve) => {
      let settled = false;
      const settle = (ok: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.outstanding--;
        resolve(ok);
      };
      const timer = setTimeout(() => settle(false), this.ctx.responseTimeoutMs);
      let sent = false;
      try {
        sent = this.session.send(new smpp.PDU("deliver_sm", fields), (resp) => settle(resp.command_status === 0));
      } catch (error) {
        this.log.warn({ err: error }, "a deliver_sm could not be written");
      }
      if (!sent) settle(false);
    });
  }

  get remoteAddress(): string {
    return this.session.socket.remoteAddress ?? "";
  }

  /** Ends the session from this side: an unbind (answered or not within a second), then the socket closed. */
  async unbind(why: string): Promise<void> {
    if (this.ended) return;
    this.log.info({ why }, "unbinding an SMPP client");
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 1000);
      if (!this.session.unbind({}, () => (clearTimeout(timer), resolve()))) resolve();
    });
    await this.end(why);
  }

  private async end(why: string): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.idleTimer);
    this.session.socket.destroy();
    if (this.bound) {
      await deleteSmppBind(this.ctx.db, this.ctx.serverId, this.id).catch((error: unknown) =>
        this.log.warn({ err: error }, "could not delete an SMPP bind's row; it stops counting once stale"),
      );
    }
    this.log.debug({ why }, "SMPP client session ended");
    this.ctx.closed(this);
  }

  /** After `enquireLinkMs` without a PDU from the client, an enquire_link; no answer in time closes the session. */
  private armIdleCheck(): void {
    clearTimeout(this.idleTimer);
    if (this.ended) return;
    this.idleTimer = setTimeout(() => {
      const deadline = setTimeout(() => void this.end("enquire_link unanswered"), this.ctx.responseTimeoutMs);
      const sent = this.session.send(new smpp.PDU("enquire_link"), () => clearTimeout(deadline));
      if (!sent) void this.end("socket closed");
    }, this.ctx.enquireLinkMs);
    this.idleTimer.unref();
  }

  /**
   * Answers a request the server serves with its `_resp`. A response that cannot be made or written (a bad
   * field) ends this session alone: nothing a client sends throws past its session.
   */
  private reply(pdu: PDU, fields: Record<string, unknown> = {}): void {
    if (this.ended) return;
    if (!SERVED.has(pdu.command)) return this.nack(pdu.sequence_number, smpp.errors.ESME_RINVCMDID!);
    try {
      this.session.send(pdu.response(fields));
    } catch (error) {
      this.fail(error, `answering ${pdu.command}`);
    }
  }

  /** A generic_nack (a command the server does not serve, or a whole frame that does not parse). */
  private nack(sequenceNumber: number, status: number): void {
    if (this.ended) return;
    try {
      const nack = new smpp.PDU("generic_nack", { command_status: status });
      nack.sequence_number = sequenceNumber;
      this.session.send(nack);
    } catch (error) {
      this.fail(error, "sending a generic_nack");
    }
  }

  /** An error of this session's own: logged, and the session (only) ends. */
  private fail(error: unknown, doing: string): void {
    this.log.error({ err: error, doing }, "an SMPP client session failed; closing it");
    void this.end(`failed ${doing}`).catch((e: unknown) => this.log.warn({ err: e }, "ending a failed SMPP session failed"));
  }

  private onMalformed(error: MalformedPdu): void {
    this.log.warn({ reason: error.message }, "malformed PDU from an SMPP client");
    if (error.sequenceNumber === undefined) return; // the frame was not whole: the socket is closed
    this.nack(error.sequenceNumber, smpp.errors.ESME_RINVCMDID!);
  }

  private onPdu(pdu: PDU): void {
    // Called from the socket's "readable" event: a throw here would reach the process, so nothing may escape.
    try {
      this.armIdleCheck();
      // Answers to the server's enquire_link, unbind and deliver_sm (their callbacks ran), and any other
      // response a client sends unasked: nothing to answer.
      if (pdu.isResponse()) return;
      if (!SERVED.has(pdu.command)) {
        // outbind, alert_notification, data_sm, query_sm, cancel_sm, replace_sm, submit_multi, deliver_sm, an
        // unknown id: generic_nack, bound or not (SMPP 3.4 §4.3).
        this.log.info({ command: pdu.command, commandId: pdu.command_id }, "an SMPP command the server does not serve");
        return this.nack(pdu.sequence_number, smpp.errors.ESME_RINVCMDID!);
      }
    } catch (error) {
      return this.fail(error, `reading ${String(pdu.command)}`);
    }
    const handle = async () => {
      if (pdu.command in BIND_MODES) return this.onBind(pdu, BIND_MODES[pdu.command]!);
      switch (pdu.command) {
        case "enquire_link":
          return this.reply(pdu);
        case "unbind":
          this.reply(pdu);
          return this.end("unbound by the client");
        default:
          return this.onSubmit(pdu);
      }
    };
    handle().catch((error: unknown) => {
      this.log.error({ err: error, command: pdu.command }, "an SMPP client's PDU failed");
      try {
        this.reply(pdu, { command_status: smpp.errors.ESME_RSYSERR });
      } catch (e) {
        this.fail(e, "answering a failed PDU");
      }
    });
  }

  private async onBind(pdu: PDU, mode: Mode): Promise<void> {
    if (this.bound) return this.reply(pdu, { command_status: smpp.errors.ESME_RALYBND });
    const systemId = String(pdu.system_id ?? "");
    const login = await checkSmppLogin(this.ctx.db, systemId, String(pdu.password ?? ""), this.remoteAddress);
    if (!login.credential) {
      // Unknown and wrong both cost one password hash (smppPasswords.ts): told apart only by their code. A locked
      // system_id, or an address slowed down by its failures, is ESME_RBINDFAIL whatever the password.
      this.log.info({ systemId, refusal: login.refusal }, "SMPP bind refused");
      const e = smpp.errors;
      const status = {
        unknown_system_id: e.ESME_RINVSYSID,
        wrong_password: e.ESME_RINVPASWD,
        locked: e.ESME_RBINDFAIL,
        address_slowed: e.ESME_RBINDFAIL,
      };
      return this.reply(pdu, { command_status: status[login.refusal] });
    }
    const credential = login.credential;
    const account = await getAccount(this.ctx.db, credential.accountId);
    const refuse = (why: string) => {
      this.log.info({ systemId, why }, "SMPP bind refused");
      this.reply(pdu, { command_status: smpp.errors.ESME_RBINDFAIL });
    };
    if (!account || account.suspended) return refuse("account suspended");
    if (!addressAllowed(credential.allowedIps, this.remoteAddress)) return refuse("address not allowed");
    const recorded = await recordSmppBind(this.ctx.db, {
      systemId,
      serverId: this.ctx.serverId,
      sessionId: this.id,
      accountId: credential.accountId,
      mode,
      remoteAddress: this.remoteAddress,
    });
    if (!recorded) return refuse(`over maxBinds (${credential.maxBinds})`);
    if (this.ended) {
      await deleteSmppBind(this.ctx.db, this.ctx.serverId, this.id);
      return;
    }
    this.bound = { credential, mode };
    this.log.info({ systemId, mode }, "SMPP client bound");
    this.reply(pdu, { system_id: this.ctx.systemId });
  }

  private async onSubmit(pdu: PDU): Promise<void> {
    const bound = this.bound;
    if (!bound || bound.mode === "receiver") return this.reply(pdu, { command_status: smpp.errors.ESME_RINVBNDSTS });
    const { credential } = bound;
    // Per bind, submitsPerSecond on average, at most a second's worth at once (a GCRA bucket in this process:
    // a bind lives in one).
    const now = Date.now();
    const start = Math.max(this.throttleTat, now);
    const interval = 1000 / credential.submitsPerSecond;
    if (start - now > 1000 - interval) {
      this.ctx.counted(credential.accountId, "throttled");
      return this.reply(pdu, { command_status: smpp.errors.ESME_RTHROTTLED });
    }
    this.throttleTat = start + interval;
    try {
      const account = await this.boundAccount(credential.accountId, now);
      if (!account || account.suspended) {
        this.ctx.counted(credential.accountId, "refused");
        return this.reply(pdu, { command_status: smpp.errors.ESME_RSUBMITFAIL });
      }
      const at = new Date();
      const { request, part } = sendRequestOf(pdu, at, this.ctx.defaultCountry);
      // registered_delivery 1 (a receipt of the final status) or 2 (of a failure): both get the final one.
      const wantsReceipt = (((pdu.registered_delivery as number | undefined) ?? 0) & 0x03) !== 0;
      const opts = { test: credential.test, destinations: this.ctx.destinations };
      let id: string;
      if (part) {
        const stored = await submitPart(this.ctx.db, account, request, part, {
          ...opts,
          at,
          idFormat: credential.messageIdFormat,
          receipt: wantsReceipt,
          maxOpenMessages: this.ctx.maxOpenParts,
        });
        if ("refused" in stored)
          throw stored.refused === "too_long"
            ? new SubmitRefused(smpp.errors.ESME_RINVMSGLEN!, "the message's parts are longer than 1600 characters")
            : new SubmitRefused(smpp.errors.ESME_RMSGQFUL!, `${this.ctx.maxOpenParts} incomplete messages are open`);
        id = formatId(credential.messageIdFormat, stored.messageId, stored.smppId);
      } else {
        const { messageId } = await scheduleMessage(this.ctx.db, account, request, at, {
          ...opts,
          smppReceipt: wantsReceipt ? credential.messageIdFormat : undefined,
        });
        id =
          credential.messageIdFormat === "uuid"
            ? messageId
            : formatId(credential.messageIdFormat, messageId, await giveSmppId(this.ctx.db, account.id, messageId));
      }
      this.ctx.counted(credential.accountId, "accepted");
      this.reply(pdu, { message_id: id });
    } catch (error) {
      if (!(error instanceof SubmitRefused || error instanceof DomainError)) throw error;
      this.ctx.counted(credential.accountId, "refused");
      this.reply(pdu, { command_status: error instanceof SubmitRefused ? error.status : statusOfRefusal(error) });
    }
  }

  /** The bound account, read again once ACCOUNT_TTL_MS passed (a suspension stops submits within a second). */
  private async boundAccount(accountId: string, now: number) {
    if (!this.account || this.account.until <= now)
      this.account = { row: await getAccount(this.ctx.db, accountId), until: now + ACCOUNT_TTL_MS };
    return this.account.row;
  }
}
