import type { Knex } from "knex";

// The inbox as threads (docs/API.md, "Conversations"): one row per number that sent the account messages, with
// its latest message, how many it sent and how many are unread. Who writes it: the inbound path, in the
// transaction that stores each message (db/conversations.ts, recordInbound); the API marks a thread read. The
// threads of messages received before this migration are made from them, read.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE conversations (
      id uuid PRIMARY KEY DEFAULT gen_uuid_v7(),
      account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      phone text NOT NULL,
      last_message_id uuid NOT NULL,
      last_body text NOT NULL,
      last_received_at timestamptz NOT NULL,
      received integer NOT NULL CHECK (received > 0),
      unread integer NOT NULL CHECK (unread >= 0),
      read_at timestamptz
    );
    CREATE UNIQUE INDEX conversations_account_phone_key ON conversations (account_id, phone);
    CREATE INDEX conversations_account_page_idx ON conversations (account_id, last_received_at DESC, id DESC);
    INSERT INTO conversations (account_id, phone, last_message_id, last_body, last_received_at, received, unread, read_at)
      SELECT DISTINCT ON (account_id, sender) account_id, sender, id, body, received_at,
             count(*) OVER (PARTITION BY account_id, sender), 0, now()
        FROM messages WHERE direction = 'inbound'
       ORDER BY account_id, sender, received_at DESC, id DESC;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
