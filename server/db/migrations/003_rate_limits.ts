import type { Knex } from "knex";

// Per-key request rate limits, shared by every server instance (GCRA: one "theoretical arrival time" a key).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE rate_limits (
      key_id  text PRIMARY KEY REFERENCES api_keys(key_id) ON DELETE CASCADE,
      tat     timestamptz NOT NULL
    );
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
