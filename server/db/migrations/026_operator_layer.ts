import type { Knex } from "knex";

// The operator layer. On accounts, what the operator decides for each (its suspension and limits); the account
// sees them read-only. `first_start` marks the account `npm start` made on an empty database, which keeps
// self-service numbers. Keys gain a scope (account keys only), an expiry and the test flag; messages the test
// flag. Numbers an account registered itself are marked self_service (all of them before this migration:
// they stay the account's). account_daily_usage counts accepted segments per UTC day, only for accounts with a
// quota. audit_events records every successful change (never a body or a secret).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE accounts
      ADD COLUMN suspended boolean NOT NULL DEFAULT false,
      ADD COLUMN weight integer NOT NULL DEFAULT 1 CHECK (weight BETWEEN 1 AND 100),
      ADD COLUMN daily_segment_quota integer CHECK (daily_segment_quota >= 1),
      ADD COLUMN allowed_countries text[] CHECK (cardinality(allowed_countries) >= 1),
      ADD COLUMN sender_ids text[] CHECK (cardinality(sender_ids) >= 1),
      ADD COLUMN self_service_numbers boolean NOT NULL DEFAULT false,
      ADD COLUMN max_segments_per_second integer CHECK (max_segments_per_second >= 1),
      ADD COLUMN first_start boolean NOT NULL DEFAULT false;
    UPDATE accounts SET first_start = true WHERE name = 'default';

    ALTER TABLE api_keys
      ADD COLUMN scope text CHECK (scope IN ('full', 'send', 'read')),
      ADD COLUMN expires_at timestamptz,
      ADD COLUMN test boolean NOT NULL DEFAULT false;
    UPDATE api_keys SET scope = 'full' WHERE kind = 'account';
    ALTER TABLE api_keys ADD CONSTRAINT api_keys_scope_kind_check CHECK ((kind = 'account') = (scope IS NOT NULL));
    ALTER TABLE api_keys ADD CONSTRAINT api_keys_test_kind_check CHECK (NOT test OR kind = 'account');
    CREATE INDEX api_keys_active_idx ON api_keys (account_id, created_at DESC) WHERE revoked_at IS NULL;

    ALTER TABLE numbers ADD COLUMN self_service boolean NOT NULL DEFAULT false;
    UPDATE numbers SET self_service = true;

    ALTER TABLE messages ADD COLUMN test boolean NOT NULL DEFAULT false;
    ALTER TABLE campaigns ADD COLUMN test boolean NOT NULL DEFAULT false;
    -- Recipients left out at creation because their destination is not allowed (premium-rate, shared-cost,
    -- a country outside the account's allowedCountries).
    ALTER TABLE campaigns ADD COLUMN skipped integer NOT NULL DEFAULT 0;

    CREATE TABLE account_daily_usage (
      account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
      day date NOT NULL,
      segments_accepted bigint NOT NULL CHECK (segments_accepted >= 0),
      warned_at timestamptz,
      PRIMARY KEY (account_id, day)
    );

    CREATE TABLE audit_events (
      id uuid PRIMARY KEY DEFAULT gen_uuid_v7(),
      created_at timestamptz NOT NULL DEFAULT now(),
      actor_type text NOT NULL CHECK (actor_type IN ('account', 'operator', 'cli')),
      key_id text,
      account_id uuid REFERENCES accounts (id) ON DELETE CASCADE,
      action text NOT NULL,
      resource_id text,
      request_id text,
      status integer
    );
    CREATE INDEX audit_events_account_idx ON audit_events (account_id, created_at DESC, id DESC);
    CREATE INDEX audit_events_created_idx ON audit_events (created_at DESC, id DESC);
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
