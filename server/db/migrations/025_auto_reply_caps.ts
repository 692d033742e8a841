import type { Knex } from "knex";

// Caps on automatic replies (guards against SMS pumping): how many went to one number on one UTC day, and from
// one account in one hour, counted where a reply is claimed (db/autoReplies.ts). A row per window; the claim
// deletes the account's windows older than yesterday as it passes.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE auto_reply_counts (
      account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      -- '' for the account's hourly count, else the number's daily one
      phone text NOT NULL,
      window_start timestamptz NOT NULL,
      sent integer NOT NULL CHECK (sent >= 0),
      PRIMARY KEY (account_id, phone, window_start)
    );
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
