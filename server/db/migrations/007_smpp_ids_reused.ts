import type { Knex } from "knex";

// An SMSC's message ids are unique only for a while: real ones reuse them after a wrap or a restart (and the
// Net::SMPP example SMSC answers every submit with the same one). A second submit answered with an id seen
// before is recorded like any other, and a receipt goes to the most recent segment with that id (the
// greatest `id`). Messages' provider ids stop being unique for the same reason; they stay indexed.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE smpp_segments DROP CONSTRAINT smpp_segments_pkey;
    ALTER TABLE smpp_segments ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY;
    CREATE INDEX smpp_segments_segment_idx ON smpp_segments (segment_id, id DESC);
    DROP INDEX messages_provider_id_key;
    CREATE INDEX messages_provider_id_idx ON messages (provider_message_id) WHERE provider_message_id IS NOT NULL;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
