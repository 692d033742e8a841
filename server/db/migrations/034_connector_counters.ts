import type { Knex } from "knex";

// What each worker wrote to each connector since it started (docs/ROUTING.md): taken, refused, of unknown
// outcome, reported with the sessions' state and added up by the API (`counters` of a connector).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE connector_states
      ADD COLUMN accepted bigint NOT NULL DEFAULT 0,
      ADD COLUMN refused bigint NOT NULL DEFAULT 0,
      ADD COLUMN unknown bigint NOT NULL DEFAULT 0;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
