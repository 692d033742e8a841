import type { Knex } from "knex";

// Receipt ids matched across case, leading zeros and hexadecimal versus decimal (server/domain/carrierIds.ts):
// each segment keeps its id's key (lower case, leading zeros dropped) beside it, and a receipt looks up the keys
// its id may have been written as. A generated column, so every writer (and every old row) has it.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE smpp_segments
      ADD COLUMN segment_key text GENERATED ALWAYS AS (coalesce(nullif(lower(ltrim(segment_id, '0')), ''), '0')) STORED;
    CREATE INDEX smpp_segments_key_idx ON smpp_segments (segment_key, id DESC);
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
