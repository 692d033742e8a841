import type { Knex } from "knex";

// The whole first schema. Rules that protect data live here, not only in code: foreign keys, uniqueness
// within an account, and CHECKs on every status column, so no code path can store an impossible state.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE accounts (
      id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      name        text NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 100),
      created_at  timestamptz NOT NULL DEFAULT now()
    );

    -- Key format sms_<keyId>_<secret>: key_id is public, only the SHA-256 of the secret is stored.
    CREATE TABLE api_keys (
      key_id       text PRIMARY KEY CHECK (key_id ~ '^[0-9A-Za-z]{12}$'),
      account_id   uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      secret_hash  bytea NOT NULL CHECK (length(secret_hash) = 32),
      created_at   timestamptz NOT NULL DEFAULT now(),
      revoked_at   timestamptz
    );
    CREATE INDEX api_keys_account_idx ON api_keys (account_id);

    CREATE TABLE groups (
      id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      account_id   uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      name         text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
      description  text,
      created_at   timestamptz NOT NULL DEFAULT now()
    );
    -- Names are unique per account regardless of case: "VIP" and "vip" would confuse anyone picking one.
    CREATE UNIQUE INDEX groups_account_name_key ON groups (account_id, lower(name));

    CREATE TABLE contacts (
      id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      account_id   uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      phone        text NOT NULL CHECK (phone ~ '^\\+[1-9][0-9]{6,14}$'),
      first_name   text,
      -- Deleting a group unassigns its contacts in the same statement, hence the same transaction.
      group_id     uuid REFERENCES groups(id) ON DELETE SET NULL,
      created_at   timestamptz NOT NULL DEFAULT now(),
      updated_at   timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT contacts_account_phone_key UNIQUE (account_id, phone)
    );
    CREATE INDEX contacts_group_idx ON contacts (group_id) WHERE group_id IS NOT NULL;
    CREATE INDEX contacts_account_page_idx ON contacts (account_id, created_at DESC, id DESC);

    CREATE TABLE campaigns (
      id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      account_id    uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      name          text NOT NULL,
      message       text NOT NULL,
      type          text NOT NULL CHECK (type IN ('instant', 'scheduled')),
      sender        text NOT NULL,
      group_id      uuid REFERENCES groups(id) ON DELETE SET NULL,
      status        text NOT NULL CHECK (status IN ('scheduled', 'sending', 'completed', 'cancelled')),
      scheduled_at  timestamptz,
      created_at    timestamptz NOT NULL DEFAULT now(),
      CHECK ((type = 'scheduled') = (scheduled_at IS NOT NULL))
    );
    CREATE INDEX campaigns_account_page_idx ON campaigns (account_id, created_at DESC, id DESC);

    -- The job table is a state machine (after river's river_job). Claimable: state available or retryable
    -- with run_at in the past; the partial index below matches that predicate exactly.
    CREATE TABLE jobs (
      id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      kind          text NOT NULL,
      payload       jsonb NOT NULL DEFAULT '{}',
      state         text NOT NULL DEFAULT 'available'
                    CHECK (state IN ('available', 'running', 'retryable', 'completed', 'cancelled', 'discarded')),
      attempt       integer NOT NULL DEFAULT 0 CHECK (attempt >= 0),
      max_attempts  integer NOT NULL DEFAULT 1 CHECK (max_attempts >= 1),
      run_at        timestamptz NOT NULL DEFAULT now(),
      locked_by     text,
      locked_until  timestamptz,
      errors        jsonb NOT NULL DEFAULT '[]',
      created_at    timestamptz NOT NULL DEFAULT now(),
      finalized_at  timestamptz,
      CHECK ((state = 'running') = (locked_by IS NOT NULL AND locked_until IS NOT NULL)),
      CHECK ((state IN ('completed', 'cancelled', 'discarded')) = (finalized_at IS NOT NULL))
    );
    CREATE INDEX jobs_claim_idx ON jobs (run_at, id) WHERE state IN ('available', 'retryable');
    CREATE INDEX jobs_lease_idx ON jobs (locked_until) WHERE state = 'running';
    CREATE INDEX jobs_finalized_idx ON jobs (finalized_at) WHERE finalized_at IS NOT NULL;

    -- 'sending' is internal: the message is claimed for the provider call. The API shows it as scheduled
    -- (it can no longer be cancelled).
    CREATE TABLE messages (
      id                   uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      account_id           uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      campaign_id          uuid REFERENCES campaigns(id) ON DELETE SET NULL,
      job_id               uuid NOT NULL,
      recipient            text NOT NULL CHECK (recipient ~ '^\\+[1-9][0-9]{6,14}$'),
      sender               text NOT NULL,
      body                 text NOT NULL CHECK (length(body) BETWEEN 1 AND 1600),
      status               text NOT NULL DEFAULT 'scheduled'
                           CHECK (status IN ('scheduled', 'sending', 'sent', 'delivered', 'failed', 'undelivered', 'cancelled')),
      scheduled_at         timestamptz NOT NULL,
      sent_at              timestamptz,
      delivered_at         timestamptz,
      cancelled_at         timestamptz,
      provider_message_id  text,
      segments             integer NOT NULL CHECK (segments >= 1),
      encoding             text NOT NULL CHECK (encoding IN ('GSM-7', 'UCS-2')),
      error_code           text,
      error_message        text,
      created_at           timestamptz NOT NULL DEFAULT now(),
      CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL))
    );
    CREATE INDEX messages_account_page_idx ON messages (account_id, created_at DESC, id DESC);
    CREATE INDEX messages_campaign_idx ON messages (campaign_id, status) WHERE campaign_id IS NOT NULL;
    CREATE UNIQUE INDEX messages_provider_id_key ON messages (provider_message_id) WHERE provider_message_id IS NOT NULL;

    CREATE TABLE message_status_history (
      id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      message_id  uuid NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
      status      text NOT NULL CHECK (status IN ('scheduled', 'sent', 'delivered', 'failed', 'undelivered', 'cancelled')),
      at          timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX message_status_history_message_idx ON message_status_history (message_id, id);

    CREATE TABLE webhooks (
      id                          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
      account_id                  uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      name                        text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
      url                         text NOT NULL,
      secret                      text NOT NULL CHECK (secret LIKE 'whsec\\_%'),
      previous_secret             text,
      previous_secret_expires_at  timestamptz,
      created_at                  timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX webhooks_account_idx ON webhooks (account_id, created_at);

    -- A replayed request returns the stored response; the row lives 24 h.
    CREATE TABLE idempotency_keys (
      account_id       uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      key              text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
      request_hash     text NOT NULL,
      response_status  integer,
      response_body    jsonb,
      created_at       timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (account_id, key)
    );
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
