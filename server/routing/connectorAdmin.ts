// The operator's connectors and routing table (docs/ROUTING.md): the API's rules over routing/connectorsTable.ts and
// routing/routesTable.ts. The workers apply what is stored here (providers/connectorSet.ts); this module never
// talks to a carrier.
import {
  deleteConnector,
  getConnector,
  insertConnector,
  listConnectors,
  readConnectorStates,
  updateConnector,
  type ConnectorRow,
  type ConnectorSettings,
  type ConnectorState,
  type NewConnector,
  type SmppSettings,
} from "./connectorsTable.js";
import { isUniqueViolation } from "../db/errors.js";
import { makeCappedSendsDue } from "../db/jobs/index.js";
import { forgetThroughputBuckets } from "../db/throughputBuckets.js";
import type { Db } from "../db/knex.js";
import { readRoutingTable, replaceRoutingTable, routesNaming, type RoutingTable } from "./routesTable.js";
import { DomainError, invalidField, notFound } from "../domain/errors.js";
import { connectorBucketKey, turnsKey } from "../domain/throughput.js";
import { candidatesOf, connectorsOf, matchRoute, routeTableErrors, shadowedRoutes, type Route, type RoutedFacts } from "./routeRules.js";

/** A worker's state row older than this is a dead worker's (workers refresh theirs every few seconds). */
export const CONNECTOR_STATE_FRESH_MS = 15_000;

export interface ConnectorInput {
  name?: string;
  type?: "smpp" | "simulator";
  smpp?: SmppSettings;
  maxSegmentsPerSecond?: number | null;
  enabled?: boolean;
}

/** A connector with the live state its workers report. */
export interface ConnectorView {
  row: ConnectorRow;
  state: ConnectorState["state"];
  sessionsBound: number;
  stateSince: Date;
  lastError: string | null;
  /** What the running workers wrote to it since they started. */
  counters: { accepted: number; refused: number; unknown: number };
}

/** Every connector with its state, oldest first. */
export async function connectorViews(db: Db): Promise<ConnectorView[]> {
  const [rows, states] = await Promise.all([listConnectors(db), readConnectorStates(db, CONNECTOR_STATE_FRESH_MS)]);
  return rows.map((row) => viewOf(row, states));
}

export async function connectorView(db: Db, id: string): Promise<ConnectorView> {
  const row = await getConnector(db, id);
  if (!row) throw notFound("Connector");
  return viewOf(row, await readConnectorStates(db, CONNECTOR_STATE_FRESH_MS));
}

/**
 * The workers' states together: bound when any session is bound anywhere. The state is the holders' (a worker
 * whose share is no session says nothing about the link); the counters are every worker's.
 */
function viewOf(row: ConnectorRow, states: ConnectorState[]): ConnectorView {
  const all = states.filter((s) => s.connectorId === row.id);
  const mine = all.filter((s) => s.sessionsHeld > 0);
  const sessionsBound = mine.reduce((n, s) => n + s.sessionsBound, 0);
  const state: ConnectorView["state"] = !row.enabled
    ? "disabled"
    : sessionsBound > 0
      ? "bound"
      : mine.some((s) => s.state === "binding")
        ? "binding"
        : "down";
  const since = mine.filter((s) => s.state === state).map((s) => s.stateSince.getTime());
  return {
    row,
    state,
    sessionsBound,
    stateSince: since.length > 0 ? new Date(Math.min(...since)) : row.updatedAt,
    lastError: mine.find((s) => s.lastError !== null)?.lastError ?? null,
    counters: {
      accepted: all.reduce((n, s) => n + s.accepted, 0),
      refused: all.reduce((n, s) => n + s.refused, 0),
      unknown: all.reduce((n, s) => n + s.unknown, 0),
    },
  };
}

export async function createConnector(
  db: Db,
  input: ConnectorInput & { name: string; type: "smpp" | "simulator" },
): Promise<ConnectorView> {
  const row = await insertConnector(db, newConnector(input)).catch(rethrowNameTaken(input.name));
  if (!row) throw nameTaken(input.name);
  return connectorView(db, row.id);
}

/**
 * Changes a connector. When its cap changes, the messages waiting for it are made due once every worker has
 * applied the change (`appliedWithinMs`: their look at the connectors) and judged by the new cap: turns given
 * at the old rate would keep them asleep past slots a raised cap has (docs/ROUTING.md, "Connectors").
 */
export async function changeConnector(db: Db, id: string, input: ConnectorInput, appliedWithinMs: number): Promise<ConnectorView> {
  const before = await getConnector(db, id);
  if (!before) throw notFound("Connector");
  const type = input.type ?? before.type;
  const merged = newConnector({
    name: input.name ?? before.name,
    type,
    // A type changed to smpp needs its link; one changed to the simulator drops it.
    smpp: input.smpp ?? (type === "smpp" && before.smpp ? before.smpp : undefined),
    maxSegmentsPerSecond: input.maxSegmentsPerSecond === undefined ? before.maxSegmentsPerSecond : input.maxSegmentsPerSecond,
    enabled: input.enabled ?? before.enabled,
  });
  if (!(await updateConnector(db, id, merged).catch(rethrowNameTaken(merged.name)))) throw notFound("Connector");
  if (merged.maxSegmentsPerSecond !== before.maxSegmentsPerSecond) {
    await forgetThroughputBuckets(db, [turnsKey(connectorBucketKey(id))]);
    await makeCappedSendsDue(db, id, new Date(Date.now() + appliedWithinMs));
  }
  return connectorView(db, id);
}

export async function removeConnector(db: Db, id: string): Promise<void> {
  await db.transaction(async (tx) => {
    await readRoutingTable(tx, { forUpdate: true }); // no table replaced meanwhile names it
    const naming = await routesNaming(tx, id);
    if (naming.length > 0)
      throw new DomainError(
        "connector_in_use",
        `The connector is named by the route(s) ${naming.join(", ")}; take it out of the routing table first.`,
      );
    if (!(await deleteConnector(tx, id))) throw notFound("Connector");
  });
}

function newConnector(input: ConnectorInput & { name: string; type: "smpp" | "simulator" }): NewConnector {
  let settings: ConnectorSettings;
  if (input.type === "smpp") {
    if (!input.smpp) throw invalidField("/body/smpp", "is required for type smpp");
    settings = { type: "smpp", smpp: input.smpp };
  } else {
    if (input.smpp) throw invalidField("/body/smpp", "is only for type smpp");
    settings = { type: "simulator", smpp: null };
  }
  return { name: input.name, settings, maxSegmentsPerSecond: input.maxSegmentsPerSecond ?? null, enabled: input.enabled ?? true };
}

const nameTaken = (name: string) => new DomainError("connector_exists", `A connector named ${name} exists already.`);
const rethrowNameTaken = (name: string) => (error: unknown) => {
  throw isUniqueViolation(error, "connectors_name_key") ? nameTaken(name) : error;
};

/** The table with its warnings (routes that can never match). */
export const withWarnings = (table: RoutingTable) => ({
  ...table,
  warnings: shadowedRoutes(table.routes).map((w) => ({ path: w.pointer, message: w.detail })),
});

export async function routingTable(db: Db) {
  return withWarnings(await readRoutingTable(db));
}

/** Replaces the table whole (422 `route_invalid` with every error; 409 `version_conflict`). */
export async function replaceRoutes(db: Db, version: number, routes: Route[]) {
  return db.transaction(async (tx) => {
    // Locked, so a connector deleted meanwhile cannot be named (a DELETE checks the table under the same lock).
    const current = await readRoutingTable(tx, { forUpdate: true });
    if (current.version !== version)
      throw new DomainError("version_conflict", `The routing table is at version ${current.version}, not ${version}; read it again.`);
    const ids = new Set((await listConnectors(tx)).map((c) => c.id));
    const errors = routeTableErrors(routes, (id) => ids.has(id)).map((e) => ({ path: `/body${e.pointer}`, message: e.detail }));
    // A code that is no country is bad input (400), as a malformed one is; the rest need the table to judge.
    const notCountries = errors.filter((e) => e.path.includes("/match/countries/"));
    if (notCountries.length > 0)
      throw new DomainError("validation_failed", `The request is invalid: ${notCountries[0]!.path} ${notCountries[0]!.message}.`, {
        errors: notCountries,
      });
    if (errors.length > 0)
      throw new DomainError("route_invalid", `The routing table is invalid: ${errors[0]!.path} ${errors[0]!.message}.`, { errors });
    return withWarnings((await replaceRoutingTable(tx, version, routes.map(normalised)))!);
  });
}

/** Stored as given, with the defaults spelled out (weight 1, no fallback). */
const normalised = (r: Route): Route => ({
  name: r.name,
  match: r.match,
  connectors: r.connectors.map((c) => ({ connectorId: c.connectorId, weight: c.weight ?? 1 })),
  fallback: r.fallback ?? [],
});

/** What a message would do now, as the workers' reported states say. */
export async function explainRoute(db: Db, facts: RoutedFacts) {
  const [table, views] = await Promise.all([readRoutingTable(db), connectorViews(db)]);
  const route = matchRoute(table.routes, facts);
  const byId = new Map(views.map((v) => [v.row.id, v]));
  const available = (id: string) => byId.get(id)?.state === "bound";
  // The pool in the order it would be tried now (the first by weight), then the fallback; the unavailable last.
  const order = route ? candidatesOf(route, available).map((c) => c.connectorId) : [];
  const rest = route ? connectorsOf(route).filter((id) => !order.includes(id)) : [];
  return {
    route: route?.name ?? null,
    candidates: [...order, ...rest].map((connectorId) => {
      const state = byId.get(connectorId)?.state;
      return { connectorId, available: state === "bound", reason: state === "bound" ? null : (state ?? "deleted") };
    }),
    sender: facts.from,
  };
}
