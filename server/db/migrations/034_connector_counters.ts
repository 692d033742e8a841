import type { Knex } from "knex";

// What each worker wrote to each connector since it started (docs/ROUTING.md): taken, refused, of unknown
// outcome, reported with the sessions' state and added up by the API (`counters` of a connector).
// IF NOT EXISTS: two commits of this session (58495b9, d1b5d78) had these columns in 032 itself, never
// released; a database one of them migrated already has them.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE connector_states
      ADD COLUMN IF NOT EXISTS accepted bigint NOT NULL DEFAULT 0,
      ADD COLUMN IF NOT EXISTS refused bigint NOT NULL DEFAULT 0,
      ADD COLUMN IF NOT EXISTS unknown bigint NOT NULL DEFAULT 0;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
