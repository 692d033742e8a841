import type { Knex } from "knex";

// Carrier routing (docs/ROUTING.md): connectors gain their cap and an on/off switch; every worker reports the
// state of its sessions of each connector (connector_states, one row per connector and worker, read together
// by the API); the routing table is one versioned document (routing_table, a single row, replaced whole); a
// message records the connector it went to, the attempts before it, and what it waits for.
// A deployment that already has its `default` connector gets the catch-all route to it, so nothing changes
// for it until an operator edits the table.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE connectors
      ADD COLUMN max_segments_per_second integer CHECK (max_segments_per_second >= 1),
      ADD COLUMN enabled boolean NOT NULL DEFAULT true;

    CREATE TABLE connector_states (
      connector_id uuid NOT NULL REFERENCES connectors (id) ON DELETE CASCADE,
      worker_id text NOT NULL,
      state text NOT NULL CHECK (state IN ('bound', 'binding', 'down', 'disabled')),
      sessions_bound integer NOT NULL,
      state_since timestamptz NOT NULL,
      last_error text,
      seen_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (connector_id, worker_id)
    );

    CREATE TABLE routing_table (
      singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      version integer NOT NULL,
      routes jsonb NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    INSERT INTO routing_table (version, routes)
    SELECT 1, jsonb_build_array(jsonb_build_object(
             'name', 'default', 'match', '{}'::jsonb,
             'connectors', jsonb_build_array(jsonb_build_object('connectorId', id, 'weight', 1)),
             'fallback', '[]'::jsonb))
      FROM connectors WHERE name = 'default';
    INSERT INTO routing_table (version, routes) SELECT 0, '[]'::jsonb WHERE NOT EXISTS (SELECT FROM routing_table);

    ALTER TABLE messages
      ADD COLUMN connector_id uuid,
      ADD COLUMN attempts jsonb,
      ADD COLUMN waiting_for text CHECK (waiting_for IN ('connector'));
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
