import type { Knex } from "knex";

// Validity (docs/API.md, "Sending policy"): a message not handed to the provider by messages.valid_until is
// never sent; it fails as validity_expired. A campaign keeps its validity_period (seconds) for its fan-out,
// which counts it from the campaign's scheduled_at (an instant campaign: its creation). Both nullable: no limit.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE messages ADD COLUMN valid_until timestamptz;
    ALTER TABLE campaigns ADD COLUMN validity_period integer CHECK (validity_period BETWEEN 1 AND 604800);
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
