// The routing table (migration 032): one row holding the ordered routes as one document and its version.
// Replaced whole, only by a writer that names the version it read (optimistic concurrency).
import type { Knex } from "knex";
import type { Route } from "./routeRules.js";
import type { ConnectorRow } from "./connectorsTable.js";
import { run, sql } from "../db/sql.js";

/** A connector as a worker runs it. */
export type LiveConnector = Omit<ConnectorRow, "createdAt" | "updatedAt">;

export interface RoutingTable {
  version: number;
  routes: Route[];
}

export async function readRoutingTable(db: Knex, opts: { forUpdate?: boolean } = {}): Promise<RoutingTable> {
  const lock = sql.raw(opts.forUpdate ? "FOR UPDATE" : "");
  const { rows } = await run<RoutingTable>(db, sql`SELECT version, routes FROM routing_table ${lock}`);
  return rows[0] ?? { version: 0, routes: [] };
}

/** Replaces the table when its version is still `version`; the new table, or undefined when it moved on. */
export async function replaceRoutingTable(db: Knex, version: number, routes: Route[]): Promise<RoutingTable | undefined> {
  const { rows } = await run<RoutingTable>(
    db,
    sql`UPDATE routing_table SET version = version + 1, routes = ${JSON.stringify(routes)}::jsonb, updated_at = now()
         WHERE version = ${version} RETURNING version, routes`,
  );
  return rows[0];
}

/** The names of the routes that name a connector (in their pool or fallback). */
export async function routesNaming(db: Knex, connectorId: string): Promise<string[]> {
  const { rows } = await run<{ name: string }>(
    db,
    sql`SELECT r->>'name' AS name FROM routing_table, jsonb_array_elements(routes) r
         WHERE r->'connectors' @> jsonb_build_array(jsonb_build_object('connectorId', ${connectorId}::text))
            OR r->'fallback' @> to_jsonb(ARRAY[${connectorId}::text])`,
  );
  return rows.map((r) => r.name);
}

/**
 * What every routing or connector change moves: the table's version, and the connectors' newest change and count
 * (a delete lowers the count). A worker compares it after each claim of sends, so that every message claimed
 * after a change's 200 is routed by it (docs/ROUTING.md, "When a change applies").
 */
const GENERATION = sql.raw(
  `(SELECT version FROM routing_table) || '/' || (SELECT coalesce(max(updated_at)::text, '') || '/' || count(*) FROM connectors)`,
);

export async function readRoutingGeneration(db: Knex): Promise<string> {
  const { rows } = await run<{ generation: string }>(db, sql`SELECT ${GENERATION} AS generation`);
  return rows[0]?.generation ?? "";
}

export interface RoutingSnapshot {
  /** readRoutingGeneration's value as of this snapshot. */
  generation: string;
  connectors: LiveConnector[];
  table: RoutingTable;
  /** The workers that share the connectors' sessions (reported within `liveMs`; the reader among them or not). */
  workers: string[];
  /** Connectors some other live worker has a bound session of. */
  boundElsewhere: string[];
}

/**
 * Everything a worker routes by, read in one statement: the connectors, the table, and who holds what (rows of
 * connector_states reported within `liveMs`; a worker of the previous release writes no `sessions_held` and
 * opens every session itself, so it takes no share).
 */
export async function readRoutingSnapshot(db: Knex, me: string, liveMs: number): Promise<RoutingSnapshot> {
  const live = sql`seen_at > now() - make_interval(secs => ${liveMs / 1000})`;
  const { rows } = await run<{
    generation: string;
    connectors: LiveConnector[];
    version: number;
    routes: Route[];
    workers: string[];
    boundElsewhere: string[];
  }>(
    db,
    sql`SELECT ${GENERATION} AS generation, (SELECT coalesce(jsonb_agg(jsonb_build_object('id', id, 'name', name, 'type', type, 'smpp', smpp,
                        'maxSegmentsPerSecond', max_segments_per_second, 'enabled', enabled) ORDER BY created_at, id), '[]')
                  FROM connectors) AS connectors, version, routes,
               (SELECT coalesce(jsonb_agg(DISTINCT worker_id), '[]') FROM connector_states
                 WHERE sessions_held IS NOT NULL AND ${live}) AS workers,
               (SELECT coalesce(jsonb_agg(DISTINCT connector_id), '[]') FROM connector_states
                 WHERE worker_id <> ${me} AND sessions_bound > 0 AND ${live}) AS "boundElsewhere"
          FROM routing_table`,
  );
  const r = rows[0];
  return {
    generation: r?.generation ?? "",
    connectors: r?.connectors ?? [],
    table: { version: r?.version ?? 0, routes: r?.routes ?? [] },
    workers: r?.workers ?? [],
    boundElsewhere: r?.boundElsewhere ?? [],
  };
}
