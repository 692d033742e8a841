import type { Knex } from "knex";

// SMPP credentials of accounts (docs/SMPP.md, "For client applications"): a client application binds to the
// service's SMPP port with system_id and password. The password is stored as a scrypt hash with its salt
// (operator/smppPasswords.ts); allowed_ips are CIDR blocks as given (checked by node:net's BlockList);
// system_id is unique in the service, so a bind names its account.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE smpp_credentials (
      system_id text PRIMARY KEY CHECK (length(system_id) BETWEEN 1 AND 15),
      account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      password_hash text NOT NULL,
      max_binds integer NOT NULL DEFAULT 4 CHECK (max_binds BETWEEN 1 AND 20),
      submits_per_second integer NOT NULL DEFAULT 50 CHECK (submits_per_second >= 1),
      window_size integer NOT NULL DEFAULT 10 CHECK (window_size >= 1),
      allowed_ips text[] NOT NULL DEFAULT '{}',
      message_id_format text NOT NULL DEFAULT 'uuid' CHECK (message_id_format IN ('uuid', 'hex', 'decimal')),
      test boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX smpp_credentials_account_idx ON smpp_credentials (account_id, created_at);
    -- The binds open now, on every SMPP server process: maxBinds counts them, and (later) receipts find a
    -- receiver through them. A process refreshes seen_at of its binds every few seconds; a row not seen for
    -- a while is a dead process's, and no longer counts.
    CREATE TABLE smpp_binds (
      system_id text NOT NULL REFERENCES smpp_credentials(system_id) ON DELETE CASCADE,
      server_id text NOT NULL,
      session_id text NOT NULL,
      account_id uuid NOT NULL,
      mode text NOT NULL CHECK (mode IN ('transmitter', 'receiver', 'transceiver')),
      remote_address text NOT NULL,
      bound_at timestamptz NOT NULL DEFAULT now(),
      seen_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (server_id, session_id)
    );
    CREATE INDEX smpp_binds_system_idx ON smpp_binds (system_id, seen_at);
    -- A message submitted over SMPP by a client that wants short ids (messageIdFormat hex or decimal) gets a
    -- number of its own. Nullable without a default: added at once, whatever the table's size.
    ALTER TABLE messages ADD COLUMN smpp_id bigint;
    CREATE SEQUENCE smpp_message_ids;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
