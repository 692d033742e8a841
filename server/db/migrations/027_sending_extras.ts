import type { Knex } from "knex";

// Sending like every carrier API: a message's batch (POST /messages/batch), the caller's own reference and
// metadata (carried in every receipt), and the text as sent when smart encoding changed it (sent_body; null
// when the same). Campaigns carry reference, metadata and smart encoding for their messages; the account's
// smart_encoding is the default. batches records a batch (its cancel answers 404 for an unknown one).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE messages
      ADD COLUMN batch_id uuid,
      ADD COLUMN reference text CHECK (length(reference) BETWEEN 1 AND 128),
      ADD COLUMN metadata jsonb,
      ADD COLUMN sent_body text;
    CREATE INDEX messages_reference_page_idx ON messages (account_id, reference, created_at DESC, id DESC) WHERE reference IS NOT NULL;
    CREATE INDEX messages_batch_page_idx ON messages (batch_id, created_at DESC, id DESC) WHERE batch_id IS NOT NULL;

    ALTER TABLE campaigns
      ADD COLUMN reference text CHECK (length(reference) BETWEEN 1 AND 128),
      ADD COLUMN metadata jsonb,
      ADD COLUMN smart_encoding boolean NOT NULL DEFAULT false;

    ALTER TABLE account_settings ADD COLUMN smart_encoding boolean NOT NULL DEFAULT false;

    CREATE TABLE batches (
      id uuid PRIMARY KEY,
      account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      accepted integer NOT NULL CHECK (accepted >= 0),
      rejected integer NOT NULL CHECK (rejected >= 0)
    );
    CREATE INDEX batches_account_idx ON batches (account_id, created_at);
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
