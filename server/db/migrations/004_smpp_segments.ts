import type { Knex } from "knex";

// The parts of a message sent over SMPP: the carrier reports on each segment by its own id, and the message
// gets one final status from all of them.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE smpp_segments (
      segment_id           text PRIMARY KEY,
      message_id           uuid NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
      provider_message_id  text NOT NULL,
      seq                  integer NOT NULL CHECK (seq >= 1),
      total                integer NOT NULL CHECK (total >= seq),
      stat                 text,
      err                  text
    );
    CREATE INDEX smpp_segments_message_idx ON smpp_segments (message_id);
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
