import type { Knex } from "knex";

// Operator keys: a key is of an account (as every key so far) or of the operator, who runs the service and has
// no account. `name` labels a key; `last_used_at` is written in batches by the API process (at most every
// 30 s per key), never on a request's own path.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE api_keys ADD COLUMN kind text NOT NULL DEFAULT 'account';
    ALTER TABLE api_keys ADD CONSTRAINT api_keys_kind_check CHECK (kind IN ('account', 'operator'));
    ALTER TABLE api_keys ALTER COLUMN account_id DROP NOT NULL;
    ALTER TABLE api_keys ADD CONSTRAINT api_keys_kind_account_check CHECK ((kind = 'operator') = (account_id IS NULL));
    ALTER TABLE api_keys ADD COLUMN name text CHECK (length(name) BETWEEN 1 AND 100);
    ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
