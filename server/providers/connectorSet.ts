// A worker's connectors (docs/ROUTING.md): the providers of every enabled connector and the routing table, kept
// as the database has them. Every `refreshMs` the worker reads both (one small statement) and applies what
// changed: a connector added opens its sessions, one disabled or deleted closes them, one whose link changed
// rebinds; the table is swapped whole. Messages are judged against the table when they are sent
// (providers/failover.ts), so a change applies to messages already waiting. The worker also reports the state of
// its sessions of each connector (connector_states), which the API shows and /routes/explain reads.
// A connector's `sessions` are for the whole service: each worker opens its share (domain/sessionShare.ts, dealt
// out over the workers that reported lately), and a message routed to a connector this worker holds no bound
// session of, but another worker does, is handed to that worker (providers/failover.ts, claim_jobs_v6).
import { capsAfterRouting } from "../domain/throughput.js";
import { isDeepStrictEqual } from "node:util";
import type { Config } from "../config.js";
import { forgetConnectorStates, recordConnectorStates, type ConnectorState } from "../routing/index.js";
import type { Db } from "../db/knex.js";
import type { JobHandoff } from "../db/jobs/index.js";
import { readRoutingGeneration, readRoutingSnapshot, type LiveConnector, type RoutingTable } from "../routing/index.js";
import { candidatesOf, matchRoute, type RoutedFacts } from "../routing/index.js";
import type { Logger } from "../logger.js";
import { sessionsHeldBy } from "../domain/sessionShare.js";
import { createSimulator, createSmppSession, receiptStore, smppLinkOf } from "./index.js";
import { SessionPool } from "./sessionPool.js";
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
  /** Its sessions are other workers': a message routed to it is handed to them (docs/ROUTING.md, "Sessions"). */
  remote: boolean;
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
    remote: false,
  };
  return {
    window: provider.window,
    fixed: () => only,
    plan: () => ({ route: "fixed", candidates: [{ ...only, pool: true }] }),
  };
}

interface Running {
  row: LiveConnector;
  /** The sessions this worker holds of it: its share (0 when the other workers hold them all). */
  pool: SessionPool;
  state: ConnectorState["state"];
  stateSince: Date;
  tally: Tally;
}

/** A worker is alive for the sessions' deal while it reported within this (it reports at every refresh). */
export const sessionLiveMs = (refreshMs: number) => 3 * refreshMs + 1_000;

export class ConnectorSet implements SendRouter {
  readonly window = new SendWindow(1);
  private readonly running = new Map<string, Running>();
  private table: RoutingTable = { version: -1, routes: [] };
  /** The routing generation (routing/routesTable.ts) this worker's connectors and table were read at. */
  private generation = "";
  /** Connectors another live worker has a bound session of: a message routed to one is handed to it. */
  private elsewhere = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private readonly receipts;

  constructor(
    private readonly deps: {
      db: Db;
      config: Config;
      log: Logger;
      workerId: string;
      refreshMs: number;
      /** The lane that takes the receipt deliveries SMPP receipts make (the worker's runner, once it exists). */
      receiptHandoff?: () => JobHandoff | undefined;
    },
  ) {
    this.receipts = receiptStore(deps.db, deps.log.child({ component: "smpp-receipts" }), () => deps.receiptHandoff?.());
  }

  async start(): Promise<void> {
    // Announced first, holding nothing, so that workers starting together see each other before they deal
    // the sessions out (rather than each binding them all for a refresh).
    const { connectors } = await readRoutingSnapshot(this.deps.db, this.deps.workerId, 0);
    const now = new Date();
    await recordConnectorStates(
      this.deps.db,
      this.deps.workerId,
      connectors
        .filter((c) => c.enabled)
        .map((c) => ({
          connectorId: c.id,
          state: "binding",
          sessionsBound: 0,
          sessionsHeld: 0,
          stateSince: now,
          lastError: null,
          accepted: 0,
          refused: 0,
          unknown: 0,
        })),
    );
    await this.refresh();
    this.timer = setInterval(() => {
      this.refresh().catch((error: unknown) => this.deps.log.warn({ err: error }, "could not refresh the connectors"));
    }, this.deps.refreshMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.refreshing;
    await Promise.all([...this.running.values()].map((r) => r.pool.stop()));
    this.running.clear();
    await forgetConnectorStates(this.deps.db, this.deps.workerId).catch(() => undefined);
  }

  /** Reads the connectors, the table and who holds what; applies what changed, and reports the sessions' states. */
  refresh(): Promise<void> {
    this.refreshing ??= this.apply().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async apply(): Promise<void> {
    const { workerId, refreshMs, log } = this.deps;
    const snapshot = await readRoutingSnapshot(this.deps.db, workerId, sessionLiveMs(refreshMs));
    const wanted = new Map(snapshot.connectors.filter((c) => c.enabled).map((c) => [c.id, c]));
    for (const [id, r] of this.running) {
      const next = wanted.get(id);
      // The link is what the sessions are made of; the name, the cap and the count of sessions change in place.
      if (next && next.type === r.row.type && isDeepStrictEqual(linkOf(next), linkOf(r.row))) {
        r.row = next;
        continue;
      }
      this.running.delete(id);
      log.info({ connector: r.row.name }, next ? "connector changed: rebinding" : "connector disabled or deleted: closing");
      void r.pool.stop();
    }
    for (const [id, row] of wanted) {
      const r = this.running.get(id) ?? this.open(row);
      this.running.set(id, r);
      const share = row.type === "simulator" ? 1 : sessionsHeldBy(workerId, snapshot.workers, id, row.smpp!.sessions ?? 1);
      if (share !== r.pool.sessions.length) log.info({ connector: row.name, sessions: share }, "connector sessions held by this worker");
      while (r.pool.sessions.length < share) r.pool.add(this.session(row));
      while (r.pool.sessions.length > share) void r.pool.retire();
    }
    this.table = snapshot.table;
    this.generation = snapshot.generation;
    this.elsewhere = new Set(snapshot.boundElsewhere);
    // A worker without a session of a connector still claims its messages a window at a time, to hand them on.
    this.window.resize(
      Math.max(
        1,
        [...this.running.values()].reduce((n, r) => n + (r.pool.sessions.length > 0 ? r.pool.window.size : this.sessionWindow(r.row)), 0),
      ),
    );
    // Reported at every refresh (the other workers' deal of the sessions counts this worker alive by it). A report
    // that fails (the database away a moment) is tried again at the next refresh; it never stops sending.
    await recordConnectorStates(
      this.deps.db,
      workerId,
      [...this.running.values()].map((r) => this.stateOf(r)),
    ).catch((error: unknown) => log.warn({ err: error }, "could not report the connectors' state"));
  }

  /**
   * Called after each claim of sends, before they are routed: when a routing or connector change committed since
   * this worker's last look, it looks again first. A change's 200 came after its commit, and the claim after
   * that, so every message claimed after the 200 is routed by the new table (the timer alone left up to
   * CONNECTOR_REFRESH_MS of messages on the old one). One small read per claim, no write.
   */
  async catchUp(): Promise<void> {
    // Twice at most: a refresh already running may have read the generation before the change. The claimed
    // jobs are run whatever happens here (the database away a moment routes them by the table held).
    try {
      for (let i = 0; i < 2; i++) {
        if ((await readRoutingGeneration(this.deps.db)) === this.generation) return;
        await this.refresh();
      }
    } catch (error) {
      this.deps.log.warn({ err: error }, "could not look at the routing table before routing");
    }
  }

  private open(row: LiveConnector): Running {
    const link = row.type === "simulator" ? "simulator" : smppLinkOf(row.smpp!);
    this.deps.log.info({ connector: row.name, type: row.type }, "connector opened");
    return {
      row,
      pool: new SessionPool(row.name, link),
      state: "binding",
      stateSince: new Date(),
      tally: { accepted: 0, refused: 0, unknown: 0 },
    };
  }

  private session(row: LiveConnector): Provider {
    const { db, config, log } = this.deps;
    return row.type === "simulator"
      ? createSimulator(db, config)
      : createSmppSession({ db, config, log, receipts: this.receipts }, row.smpp!, row.name);
  }

  private sessionWindow(row: LiveConnector): number {
    return row.smpp?.window ?? this.deps.config.smppMaxInFlight;
  }

  private stateOf(r: Running): ConnectorState {
    const sessions = r.pool.sessions;
    const smpp = r.row.type === "smpp" ? (sessions as SmppProvider[]).map((s) => s.connection) : [];
    const sessionsBound = r.row.type === "simulator" ? 1 : smpp.filter((c) => c.state === "bound").length;
    const state = sessionsBound > 0 ? "bound" : smpp.some((c) => c.state === "connecting") || sessions.length === 0 ? "binding" : "down";
    if (state !== r.state) Object.assign(r, { state, stateSince: new Date() });
    return {
      connectorId: r.row.id,
      state,
      sessionsBound,
      sessionsHeld: sessions.length,
      stateSince: r.stateSince,
      lastError: smpp.map((c) => c.lastError).find((e) => e !== null) ?? null,
      ...r.tally,
    };
  }

  /** Bound here (at least one session of this worker's) and enabled: this worker may write to it now. */
  private available(id: string): boolean {
    const r = this.running.get(id);
    if (!r) return false;
    return r.row.type === "simulator" || (r.pool.sessions as SmppProvider[]).some((s) => s.connection.state === "bound");
  }

  /** Enabled, not bound here, bound by another worker: a message for it is handed to that worker. */
  private remote(id: string): boolean {
    return this.running.has(id) && !this.available(id) && this.elsewhere.has(id);
  }

  private routed(id: string): RoutedConnector {
    const r = this.running.get(id)!;
    return {
      connectorId: id,
      name: r.row.name,
      provider: r.pool,
      cap: r.row.maxSegmentsPerSecond,
      tally: r.tally,
      remote: !this.available(id),
    };
  }

  /** The connectors this worker has a bound session of: its claim takes the messages handed to them. */
  held(): string[] {
    return [...this.running.keys()].filter((id) => this.available(id));
  }

  fixed(): RoutedConnector | undefined {
    const [first] = this.table.routes;
    if (!first || Object.keys(first.match).length > 0 || first.connectors.length !== 1 || (first.fallback ?? []).length > 0)
      return undefined;
    const id = first.connectors[0]!.connectorId;
    // Anything that caps after the claim (a capped connector) is paid per message once routed (providers/failover.ts).
    const capped =
      capsAfterRouting({ connectorId: id, maxSegmentsPerSecond: this.running.get(id)?.row.maxSegmentsPerSecond ?? null }).length > 0;
    return this.available(id) && !capped ? this.routed(id) : undefined;
  }

  plan(m: RoutedFacts) {
    const route = matchRoute(this.table.routes, m);
    if (!route) return undefined;
    return {
      route: route.name,
      candidates: candidatesOf(route, (id) => this.available(id) || this.remote(id)).map((c) => ({
        ...this.routed(c.connectorId),
        pool: c.pool,
      })),
    };
  }

  /** The version of the routing table this worker routes by now. */
  get tableVersion(): number {
    return this.table.version;
  }

  /** The live connectors, for metrics and tests. */
  list(): { id: string; name: string; up: boolean; provider: Provider; sessions: readonly Provider[] }[] {
    return [...this.running.values()].map((r) => ({
      id: r.row.id,
      name: r.row.name,
      up: this.available(r.row.id),
      provider: r.pool,
      sessions: r.pool.sessions,
    }));
  }
}

/** What a connector's sessions are made of: its SMPP settings but how many of them there are. */
function linkOf(row: LiveConnector): unknown {
  if (!row.smpp) return null;
  const { sessions: _, ...link } = row.smpp;
  return link;
}
