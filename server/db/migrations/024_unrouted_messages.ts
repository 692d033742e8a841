import type { Knex } from "knex";

// Inbound messages to a number no account holds: kept for the operator (GET /api/v1/unrouted-messages) instead
// of acknowledged and dropped, and deleted by retention after MESSAGE_RETENTION_DAYS like messages. Not an
// account's table: nobody holds the number.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE unrouted_messages (
      id uuid PRIMARY KEY DEFAULT gen_uuid_v7(),
      sender text NOT NULL,
      recipient text NOT NULL,
      body text NOT NULL,
      segments integer NOT NULL CHECK (segments >= 1),
      encoding text NOT NULL CHECK (encoding IN ('GSM-7', 'UCS-2')),
      incomplete boolean NOT NULL DEFAULT false,
      received_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX unrouted_messages_page_idx ON unrouted_messages (created_at DESC, id DESC);
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
