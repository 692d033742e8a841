// The sessions one worker holds of one connector, as one provider (its share of the connector's `sessions`,
// domain/sessionShare.ts). Each window goes to the bound session with the least to do. The share changes as
// workers come and go: a session added binds; a session retired takes no new window, and is unbound once what
// is on its wire is answered (so retiring it leaves no unknown outcome behind).
import type { SmppProvider } from "./smpp/provider.js";
import type { OutboundMessage, Provider, SubmitResult } from "./types.js";
import { SendWindow } from "./window.js";

/** The longest a retired session's answers are waited for before it is unbound anyway. */
const RETIRE_DRAIN_MS = 10_000;

export class SessionPool implements Provider {
  readonly window = new SendWindow(1);
  private live: Provider[] = [];

  constructor(
    readonly name: string,
    readonly link: string,
  ) {}

  get sessions(): readonly Provider[] {
    return this.live;
  }

  /** A session more: started, and its window added to the pool's. */
  add(session: Provider): void {
    this.live.push(session);
    void session.start?.();
    this.window.resize(this.windowSize());
  }

  /** One session fewer (an unbound one first, else the least busy): out of the pool now, stopped once drained. */
  async retire(): Promise<void> {
    const smpp = this.live as SmppProvider[];
    const idle = smpp.find((s) => s.connection?.state !== "bound") ?? smpp.reduce((a, b) => (busy(a) <= busy(b) ? a : b));
    this.live = this.live.filter((s) => s !== idle);
    this.window.resize(Math.max(1, this.windowSize()));
    const until = Date.now() + RETIRE_DRAIN_MS;
    while (idle.connection && busy(idle) > 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    await idle.stop?.();
  }

  /** Every session stopped (the connector closed or changed). */
  async stop(): Promise<void> {
    const all = this.live;
    this.live = [];
    await Promise.all(all.map(async (s) => s.stop?.()));
  }

  private windowSize(): number {
    return this.live.reduce((n, s) => n + s.window.size, 0);
  }

  private pick(): Provider {
    const smpp = this.live as SmppProvider[];
    const bound = smpp.filter((s) => s.connection?.state === "bound");
    if (bound.length === 0) return this.live[0]!;
    return bound.reduce((a, b) => (busy(a) <= busy(b) ? a : b));
  }

  /** The rate wait of the session the next window goes to (SMPP's; a simulator has none). */
  get beforeClaim(): ((n: number) => Promise<void>) | undefined {
    return this.live[0]?.beforeClaim ? (n) => this.pick().beforeClaim!(n) : undefined;
  }

  /** The slots of the session the next window goes to (SMPP's; a simulator has none). */
  get reserveSlots(): ((n: number) => number[]) | undefined {
    return this.live[0]?.reserveSlots ? (n) => this.pick().reserveSlots!(n) : undefined;
  }

  submit(message: OutboundMessage): Promise<SubmitResult> {
    return this.pick().submit(message);
  }

  submitBatch(messages: OutboundMessage[]): Promise<(SubmitResult | Error)[]> {
    const session = this.pick();
    return session.submitBatch
      ? session.submitBatch(messages)
      : Promise.all(messages.map((m) => session.submit(m).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))))));
  }
}

function busy(s: SmppProvider): number {
  return s.connection ? s.connection.inFlight + s.connection.waiting : 0;
}
