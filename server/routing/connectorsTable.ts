// The connectors table (migrations 022, 032): the carrier links messages leave by, each `simulator` or `smpp`,
// and connector_states: each worker's view of its own sessions of each connector (docs/ROUTING.md).
import type { Knex } from "knex";
import { run, sql } from "../db/sql.js";

/** An SMPP connector's link (the password is never shown by the API). */
export interface SmppSettings {
  host: string;
  port: number;
  systemId: string;
  password: string;
  systemType?: string;
  /** Binds (1..8). */
  sessions?: number;
  /** submit_sm awaiting their answer per session (1..100). */
  window?: number;
  /** ISO country for national-format addresses in receipts and inbound messages. */
  defaultCountry?: string;
  /** `auto`: receipt ids matched across case, leading zeros, hex and decimal; `exact`: as written. */
  messageIdFormat?: "auto" | "exact";
}

export type ConnectorSettings = { type: "simulator"; smpp: null } | { type: "smpp"; smpp: SmppSettings };

export type ConnectorRow = ConnectorSettings & {
  id: string;
  name: string;
  maxSegmentsPerSecond: number | null;
  enabled: boolean;
  createdAt: Date;
  updatedAt: Date;
};

const COLUMNS = sql`id, name, type, smpp, max_segments_per_second AS "maxSegmentsPerSecond", enabled,
                    created_at AS "createdAt", updated_at AS "updatedAt"`;

export async function readConnector(db: Knex, name: string): Promise<ConnectorRow | undefined> {
  const { rows } = await run<ConnectorRow>(db, sql`SELECT ${COLUMNS} FROM connectors WHERE name = ${name}`);
  return rows[0];
}

export async function getConnector(db: Knex, id: string): Promise<ConnectorRow | undefined> {
  const { rows } = await run<ConnectorRow>(db, sql`SELECT ${COLUMNS} FROM connectors WHERE id = ${id}`);
  return rows[0];
}

/** Every connector, oldest first (there are few). */
export async function listConnectors(db: Knex): Promise<ConnectorRow[]> {
  const { rows } = await run<ConnectorRow>(db, sql`SELECT ${COLUMNS} FROM connectors ORDER BY created_at, id`);
  return rows;
}

export interface NewConnector {
  name: string;
  settings: ConnectorSettings;
  maxSegmentsPerSecond: number | null;
  enabled: boolean;
}

/** Inserts a connector; undefined when its name is taken. */
export async function insertConnector(db: Knex, c: NewConnector): Promise<ConnectorRow | undefined> {
  const { rows } = await run<ConnectorRow>(
    db,
    sql`INSERT INTO connectors (name, type, smpp, max_segments_per_second, enabled)
        VALUES (${c.name}, ${c.settings.type}, ${jsonOf(c.settings)}::jsonb, ${c.maxSegmentsPerSecond}, ${c.enabled})
        ON CONFLICT (name) DO NOTHING RETURNING ${COLUMNS}`,
  );
  return rows[0];
}

/** Replaces a connector's settings (the whole row but its id and creation time). */
export async function updateConnector(db: Knex, id: string, c: NewConnector): Promise<ConnectorRow | undefined> {
  const { rows } = await run<ConnectorRow>(
    db,
    sql`UPDATE connectors SET name = ${c.name}, type = ${c.settings.type}, smpp = ${jsonOf(c.settings)}::jsonb,
               max_segments_per_second = ${c.maxSegmentsPerSecond}, enabled = ${c.enabled}, updated_at = now()
         WHERE id = ${id} RETURNING ${COLUMNS}`,
  );
  return rows[0];
}

export async function deleteConnector(db: Knex, id: string): Promise<boolean> {
  const { rowCount } = await run(db, sql`DELETE FROM connectors WHERE id = ${id}`);
  return (rowCount ?? 0) > 0;
}

const jsonOf = (settings: ConnectorSettings) => (settings.smpp === null ? null : JSON.stringify(settings.smpp));

/**
 * True when something leads to a carrier: an enabled connector that is not the simulator, or one that a route
 * names (it may be enabled again at any time). While nothing does, the deployment runs the simulator alone:
 * simulated inbound messages exist and accounts may add their own numbers.
 */
export async function carrierReachable(db: Knex): Promise<boolean> {
  return (await carriersReachable(db)).length > 0;
}

/** The names of the connectors that lead to a carrier (as carrierReachable judges them), by name. */
export async function carriersReachable(db: Knex): Promise<string[]> {
  const { rows } = await run<{ name: string }>(
    db,
    sql`SELECT c.name FROM connectors c
         WHERE c.type <> 'simulator'
           AND (c.enabled OR EXISTS (
                 SELECT 1 FROM routing_table, jsonb_array_elements(routes) r
                  WHERE r->'connectors' @> jsonb_build_array(jsonb_build_object('connectorId', c.id::text))
                     OR r->'fallback' @> to_jsonb(ARRAY[c.id::text])))
         ORDER BY c.name`,
  );
  return rows.map((r) => r.name);
}

/** One worker's sessions of one connector. */
export interface ConnectorState {
  connectorId: string;
  state: "bound" | "binding" | "down" | "disabled";
  sessionsBound: number;
  /** The sessions this worker opened, its share of the connector's (0: the other workers hold them all). */
  sessionsHeld: number;
  stateSince: Date;
  lastError: string | null;
  /** Messages this worker wrote to it since it started: taken, refused, of unknown outcome. */
  accepted: number;
  refused: number;
  unknown: number;
}

/** A worker's states of its connectors, stored (and its rows of connectors it no longer runs removed). */
export async function recordConnectorStates(db: Knex, workerId: string, states: ConnectorState[]): Promise<void> {
  await run(
    db,
    sql`WITH s AS (
          SELECT * FROM jsonb_to_recordset(${JSON.stringify(states)}::jsonb)
                   AS x("connectorId" uuid, state text, "sessionsBound" int, "sessionsHeld" int, "stateSince" timestamptz, "lastError" text,
                        accepted bigint, refused bigint, unknown bigint)
        ), gone AS (
          DELETE FROM connector_states c WHERE c.worker_id = ${workerId}
             AND NOT EXISTS (SELECT FROM s WHERE s."connectorId" = c.connector_id)
        )
        INSERT INTO connector_states (connector_id, worker_id, state, sessions_bound, sessions_held, state_since, last_error, accepted, refused, unknown, seen_at)
        SELECT s."connectorId", ${workerId}, s.state, s."sessionsBound", s."sessionsHeld", s."stateSince", s."lastError", s.accepted, s.refused, s.unknown, now()
          FROM s JOIN connectors c ON c.id = s."connectorId"
        ON CONFLICT (connector_id, worker_id) DO UPDATE
           SET state = excluded.state, sessions_bound = excluded.sessions_bound, sessions_held = excluded.sessions_held, state_since = excluded.state_since,
               last_error = excluded.last_error, accepted = excluded.accepted, refused = excluded.refused,
               unknown = excluded.unknown, seen_at = excluded.seen_at`,
  );
}

/** A stopping worker's states, removed. */
export async function forgetConnectorStates(db: Knex, workerId: string): Promise<void> {
  await run(db, sql`DELETE FROM connector_states WHERE worker_id = ${workerId}`);
}

/** The live workers' states of every connector (a row not refreshed within `freshMs` is a dead worker's). */
export async function readConnectorStates(db: Knex, freshMs: number): Promise<ConnectorState[]> {
  const { rows } = await run<ConnectorState>(
    db,
    sql`SELECT connector_id AS "connectorId", state, sessions_bound AS "sessionsBound",
               coalesce(sessions_held, sessions_bound) AS "sessionsHeld", state_since AS "stateSince",
               last_error AS "lastError", accepted::float8 AS accepted, refused::float8 AS refused, unknown::float8 AS unknown
          FROM connector_states WHERE seen_at > now() - make_interval(secs => ${freshMs / 1000})`,
  );
  return rows;
}
