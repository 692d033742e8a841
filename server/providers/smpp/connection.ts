// One SMPP 3.4 transceiver session to the carrier, kept bound: enquire_link every 30 s, reconnect with
// exponential backoff (1 s to 60 s) after a drop or a failed bind, a window of at most `maxInFlight`
// unacknowledged submits and at most `maxPerSecond` submits a second. The `smpp` package does the PDUs.
import smpp, { type PDU, type Session } from "smpp";
import type { Logger } from "../../logger.js";

export type BindState = "connecting" | "bound" | "disconnected" | "stopped";

export class NotBound extends Error {}
/** The connection dropped after the PDU was written: whether the carrier took it is unknown. */
export class ConnectionLost extends Error {}

export interface ConnectionOptions {
  url: string;
  systemType?: string;
  maxInFlight: number;
  maxPerSecond: number;
  log: Logger;
  /** Persist a receipt durably; the deliver_sm is acknowledged only after this resolves. */
  onReceipt: (pdu: PDU) => Promise<void>;
}

export class SmppConnection {
  state: BindState = "disconnected";
  inFlight = 0;
  maxObservedInFlight = 0;
  private session: Session | undefined;
  private backoffMs = 1000;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private readonly waiting: (() => void)[] = [];
  private readonly pending = new Set<(error: Error) => void>();
  private nextSlotAt = 0;

  constructor(private readonly opts: ConnectionOptions) {}

  start(): void {
    this.connect();
  }

  private connect(): void {
    if (this.state === "stopped") return;
    this.state = "connecting";
    const url = new URL(this.opts.url);
    const session = smpp.connect({ url: `smpp://${url.host}`, auto_enquire_link_period: 30_000 });
    this.session = session;
    session.on("connect", () => {
      session.bind_transceiver(
        {
          system_id: decodeURIComponent(url.username),
          password: decodeURIComponent(url.password),
          system_type: this.opts.systemType ?? "",
        },
        (pdu) => {
          if (pdu.command_status === 0) {
            this.state = "bound";
            this.backoffMs = 1000;
            this.opts.log.info({ smsc: url.host }, "SMPP bound as transceiver");
          } else {
            this.opts.log.error({ status: pdu.command_status }, "SMPP bind refused");
            session.close();
          }
        },
      );
    });
    session.on("deliver_sm", (pdu: PDU) => {
      this.opts.onReceipt(pdu).then(
        () => session.send(pdu.response()),
        (error: unknown) => {
          this.opts.log.error({ err: error }, "could not store an SMPP receipt; asking the SMSC to retry");
          session.send(pdu.response({ command_status: smpp.errors.ESME_RSYSERR }));
        },
      );
    });
    session.on("enquire_link", (pdu: PDU) => session.send(pdu.response()));
    session.on("unbind", (pdu: PDU) => {
      session.send(pdu.response());
      session.close();
    });
    session.on("error", (error: Error) => this.opts.log.warn({ err: error }, "SMPP connection error"));
    session.on("close", () => this.onClose(session));
  }

  private onClose(session: Session): void {
    if (this.session !== session) return;
    this.session = undefined;
    for (const fail of this.pending) fail(new ConnectionLost("SMPP connection lost while waiting for submit_sm_resp"));
    this.pending.clear();
    if (this.state === "stopped") return;
    this.state = "disconnected";
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, 60_000);
    this.opts.log.warn({ delayMs: delay }, "SMPP connection closed; reconnecting");
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  private async acquire(): Promise<void> {
    while (this.inFlight >= this.opts.maxInFlight) await new Promise<void>((r) => this.waiting.push(r));
    this.inFlight++;
    this.maxObservedInFlight = Math.max(this.maxObservedInFlight, this.inFlight);
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
      return await new Promise<PDU>((resolve, reject) => {
        this.pending.add(reject);
        const sent = session.submit_sm(fields, (pdu) => {
          this.pending.delete(reject);
          resolve(pdu);
        });
        void sent;
      });
    } finally {
      this.release();
    }
  }

  async stop(): Promise<void> {
    this.state = "stopped";
    clearTimeout(this.reconnectTimer);
    const session = this.session;
    if (!session) return;
    await new Promise<void>((resolve) => {
      const done = setTimeout(() => resolve(), 2000);
      session.unbind({}, () => {
        clearTimeout(done);
        resolve();
      });
    });
    session.close();
  }
}
