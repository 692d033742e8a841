import type { Knex } from "knex";

// Sender pools (docs/ROUTING.md, "Sender pools"): an account's senders a message may go out as, chosen when it is
// sent. sender_books keeps, per account and sender, when it was last chosen and its cap's GCRA tat (seconds
// since the epoch), locked by the send path while it chooses, so a sender's cap holds across workers and pools.
// A message or campaign names its pool without a foreign key: a deleted pool's messages fail
// `sender_pool_deleted` at their time.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE sender_pools (
      id uuid PRIMARY KEY DEFAULT gen_uuid_v7(),
      account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      name text NOT NULL,
      senders text[] NOT NULL CHECK (cardinality(senders) BETWEEN 1 AND 100),
      sticky boolean NOT NULL DEFAULT true,
      max_per_sender_per_second integer CHECK (max_per_sender_per_second >= 1),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT sender_pools_name_key UNIQUE (account_id, name)
    );
    CREATE TABLE sender_books (
      account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      sender text NOT NULL,
      last_used float8 NOT NULL DEFAULT 0,
      tat float8 NOT NULL DEFAULT 0,
      PRIMARY KEY (account_id, sender)
    );
    ALTER TABLE messages ADD COLUMN sender_pool_id uuid;
    ALTER TABLE campaigns ADD COLUMN sender_pool_id uuid;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
