// A worker's connectors (docs/ROUTING.md): the providers of every enabled connector and the routing table, kept
// as the database has them. Every `refreshMs` the worker reads both (one small statement) and applies what
// changed: a connector added opens its sessions, one disabled or deleted closes them, one whose link changed
// rebinds; the table is swapped whole. Messages are judged against the table when they are sent
// (providers/routing.ts), so a change applies to messages already waiting. The worker also reports the state of
// its sessions of each connector (connector_states), which the API shows and /routes/explain reads.
import { isDeepStrictEqual } from "node:util";
import type { Config } from "../config.js";
import { forgetConnectorStates, recordConnectorStates, type ConnectorState } from "../db/connectors.js";
import type { Db } from "../db/knex.js";
import { readRoutingSnapshot, type LiveConnector, type RoutingTable } from "../db/routingTable.js";
import { candidatesOf, matchRoute, type RoutedFacts } from "../domain/routing.js";
import type { Logger } from "../logger.js";
import { createSimulator, createSmppSession, receiptStore } from "./index.js";
import type { SmppProvider } from "./smpp/provider.js";
import type { Provider } from "./types.js";
import { SendWindow } from "./window.js";

/** A connector a message may be handed to. */
export interface RoutedConnector {
  /** null for a provider given to the worker directly (a test's), which is no connector of the table. */
  connectorId: string | null;
  name: string;
  provider: Provider;
  /** Its cap in segments a second across every worker (a GCRA bucket in the database), or null. */
  cap: number | null;
  /** What this worker's writes to it got (reported with its state). */
  tally: Tally;
}

/** Messages written to a connector by this worker, by outcome. */
export interface Tally {
  accepted: number;
  refused: number;
  unknown: number;
}

/** How SendBatch finds where its messages go: a fixed provider, or the routing table. */
export interface SendRouter {
  /** Messages on the wire at once in this worker, over every connector. */
  readonly window: SendWindow;
  /** When every message goes to one connector now: it (the claim records it, nothing is judged per message). */
  fixed(): RoutedConnector | undefined;
  /** A message's route now: undefined when none matches; else its candidates in the order to try them. */
  plan(m: RoutedFacts): { route: string; candidates: (RoutedConnector & { pool: boolean })[] } | undefined;
}

/** A provider given as it is: every message goes to it. */
export function fixedRouter(provider: Provider): SendRouter {
  const only: RoutedConnector = {
    connectorId: null,
    name: provider.name,
    provider,
    cap: null,
    tally: { accepted: 0, refused: 0, unknown: 0 },
  };
  return {
    window: provider.window,
    fixed: () => only,
    plan: () => ({ route: "fixed", candidates: [{ ...only, pool: true }] }),
  };
}

interface Running {
  row: LiveConnector;
  sessions: Provider[];
  provider: Provider;
  state: ConnectorState["state"];
  stateSince: Date;
  tally: Tally;
}

const HEARTBEAT_MS = 5_000;

export class ConnectorSet implements SendRouter {
  readonly window = new SendWindow(1);
  private readonly running = new Map<string, Running>();
  private table: RoutingTable = { version: -1, routes: [] };
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private reported = { at: 0, states: [] as ConnectorState[] };
  private readonly receipts;

  constructor(private readonly deps: { db: Db; config: Config; log: Logger; workerId: string; refreshMs: number }) {
    this.receipts = receiptStore(deps.db);
  }

  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => {
      this.refresh().catch((error: unknown) => this.deps.log.warn({ err: error }, "could not refresh the connectors"));
    }, this.deps.refreshMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.refreshing;
    await Promise.all([...this.running.values()].map((r) => this.close(r)));
    this.running.clear();
    await forgetConnectorStates(this.deps.db, this.deps.workerId).catch(() => undefined);
  }

  /** Reads the connectors and the table, applies what changed, and reports the sessions' states. */
  refresh(): Promise<void> {
    this.refreshing ??= this.apply().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async apply(): Promise<void> {
    const { connectors, table } = await readRoutingSnapshot(this.deps.db);
    const wanted = new Map(connectors.filter((c) => c.enabled).map((c) => [c.id, c]));
    for (const [id, r] of this.running) {
      const next = wanted.get(id);
      // The link is what the sessions are made of; the name and the cap change in place.
      if (next && next.type === r.row.type && isDeepStrictEqual(next.smpp, r.row.smpp)) {
        r.row = next;
        continue;
      }
      this.running.delete(id);
      this.deps.log.info({ connector: r.row.name }, next ? "connector changed: rebinding" : "connector disabled or deleted: closing");
      void this.close(r);
    }
    for (const [id, row] of wanted) if (!this.running.has(id)) this.running.set(id, this.open(row));
    this.table = table;
    this.window.resize(
      Math.max(
        1,
        [...this.running.values()].reduce((n, r) => n + r.sessions.reduce((k, s) => k + s.window.size, 0), 0),
      ),
    );
    // A report that fails (the database away a moment) is tried again at the next refresh; it never stops sending.
    await this.report().catch((error: unknown) => this.deps.log.warn({ err: error }, "could not report the connectors' state"));
  }

  private open(row: LiveConnector): Running {
    const { db, config, log } = this.deps;
    let sessions: Provider[];
    if (row.type === "simulator") sessions = [createSimulator(db, config)];
    else {
      const smpp = row.smpp!;
      sessions = Array.from({ length: smpp.sessions ?? 1 }, () =>
        createSmppSession({ db, config, log, receipts: this.receipts }, smpp, row.name),
      );
    }
    for (const s of sessions) void s.start?.();
    log.info({ connector: row.name, type: row.type, sessions: sessions.length }, "connector opened");
    return {
      row,
      sessions,
      provider: sessions.length === 1 ? sessions[0]! : new SessionPool(sessions),
      state: "binding",
      stateSince: new Date(),
      tally: { accepted: 0, refused: 0, unknown: 0 },
    };
  }

  private async close(r: Running): Promise<void> {
    await Promise.all(r.sessions.map(async (s) => s.stop?.()));
  }

  /** Stored when a state changed, and every few seconds so the API knows this worker is alive. */
  private async report(): Promise<void> {
    const states = [...this.running.values()].map((r) => this.stateOf(r));
    const same = isDeepStrictEqual(
      states.map(({ stateSince: _, ...s }) => s),
      this.reported.states.map(({ stateSince: _, ...s }) => s),
    );
    if (same && Date.now() - this.reported.at < HEARTBEAT_MS) return;
    await recordConnectorStates(this.deps.db, this.deps.workerId, states);
    this.reported = { at: Date.now(), states };
  }

  private stateOf(r: Running): ConnectorState {
    const smpp = r.row.type === "smpp" ? (r.sessions as SmppProvider[]).map((s) => s.connection) : [];
    const sessionsBound = r.row.type === "simulator" ? 1 : smpp.filter((c) => c.state === "bound").length;
    const state = sessionsBound > 0 ? "bound" : smpp.some((c) => c.state === "connecting") ? "binding" : "down";
    if (state !== r.state) Object.assign(r, { state, stateSince: new Date() });
    return {
      connectorId: r.row.id,
      state,
      sessionsBound,
      stateSince: r.stateSince,
      lastError: smpp.map((c) => c.lastError).find((e) => e !== null) ?? null,
      ...r.tally,
    };
  }

  /** Bound (at least one session) and enabled: a message may be written to it now. */
  private available(id: string): boolean {
    const r = this.running.get(id);
    if (!r) return false;
    return r.row.type === "simulator" || (r.sessions as SmppProvider[]).some((s) => s.connection.state === "bound");
  }

  private routed(id: string): RoutedConnector {
    const r = this.running.get(id)!;
    return { connectorId: id, name: r.row.name, provider: r.provider, cap: r.row.maxSegmentsPerSecond, tally: r.tally };
  }

  fixed(): RoutedConnector | undefined {
    const [first] = this.table.routes;
    if (!first || Object.keys(first.match).length > 0 || first.connectors.length !== 1 || (first.fallback ?? []).length > 0)
      return undefined;
    const id = first.connectors[0]!.connectorId;
    // A capped connector is paid per message once routed (providers/routing.ts).
    return this.available(id) && this.running.get(id)!.row.maxSegmentsPerSecond === null ? this.routed(id) : undefined;
  }

  plan(m: RoutedFacts) {
    const route = matchRoute(this.table.routes, m);
    if (!route) return undefined;
    return {
      route: route.name,
      candidates: candidatesOf(route, (id) => this.available(id)).map((c) => ({ ...this.routed(c.connectorId), pool: c.pool })),
    };
  }

  /** The version of the routing table this worker routes by now. */
  get tableVersion(): number {
    return this.table.version;
  }

  /** The live connectors, for metrics and tests. */
  list(): { id: string; name: string; up: boolean; provider: Provider; sessions: Provider[] }[] {
    return [...this.running.values()].map((r) => ({
      id: r.row.id,
      name: r.row.name,
      up: this.available(r.row.id),
      provider: r.provider,
      sessions: r.sessions,
    }));
  }
}

/** A connector's sessions as one provider: each window goes to the bound session with the least to do. */
class SessionPool implements Provider {
  readonly name: string;
  readonly link: string;
  readonly window: SendWindow;

  constructor(private readonly sessions: Provider[]) {
    this.name = sessions[0]!.name;
    this.link = sessions[0]!.link;
    this.window = new SendWindow(sessions.reduce((n, s) => n + s.window.size, 0));
  }

  private pick(): Provider {
    const smpp = this.sessions as SmppProvider[];
    const bound = smpp.filter((s) => s.connection.state === "bound");
    if (bound.length === 0) return this.sessions[0]!;
    return bound.reduce((a, b) => (a.connection.inFlight + a.connection.waiting <= b.connection.inFlight + b.connection.waiting ? a : b));
  }

  submit(message: Parameters<Provider["submit"]>[0]) {
    return this.pick().submit(message);
  }

  submitBatch(messages: Parameters<Provider["submit"]>[0][]) {
    const session = this.pick();
    return session.submitBatch ? session.submitBatch(messages) : Promise.all(messages.map((m) => session.submit(m).catch((e: Error) => e)));
  }
}
