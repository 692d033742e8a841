import type { Knex } from "knex";

// People who sign in to the dashboard (docs/USERS.md): users of an account or of the operator, their
// invitations, their sessions and the sign-in failures counted per client address.
// - users: one row per person; `account_id` NULL for an operator user. `email` is stored lower-cased and is
//   unique in the service. `password_hash` (argon2id, PHC string) is NULL until the invitation is accepted.
//   `failed_sign_ins` / `locked_until`: ten failures in a row lock the user for 15 minutes; a sign-in resets
//   them. `totp_secret` is set when two-factor sign-in is begun and used once `totp_enabled`; `totp_last_step`
//   is the time step of the last code taken (a code is taken once); `recovery_codes` are SHA-256 hashes, each
//   removed when used. Who moves it: the users service (server/operator/users.ts).
// - user_invitations: a token's SHA-256 (the token is shown once), until it is accepted or expires (7 days).
// - user_sessions: a session cookie's SHA-256, its CSRF token, and `last_seen_at` (moved at most once a
//   minute by the requests it authenticates; 12 h idle ends it). Signing out deletes it; expired ones are
//   deleted by whoever next looks them up, and by the leader's chore.
// - sign_in_failures: failures per client address in the current 15-minute window, so one address cannot
//   lock out every user without being slowed down itself.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE users (
      id uuid PRIMARY KEY DEFAULT gen_uuid_v7(),
      account_id uuid REFERENCES accounts(id) ON DELETE CASCADE,
      email text NOT NULL UNIQUE CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
      role text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'viewer', 'operator')),
      CHECK ((account_id IS NULL) = (role = 'operator')),
      password_hash text,
      failed_sign_ins int NOT NULL DEFAULT 0,
      locked_until timestamptz,
      totp_secret text,
      totp_enabled boolean NOT NULL DEFAULT false,
      totp_last_step bigint,
      recovery_codes text[] NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      last_sign_in_at timestamptz
    );
    CREATE INDEX users_account_idx ON users (account_id, created_at);
    CREATE TABLE user_invitations (
      token_hash bytea PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX user_invitations_user_idx ON user_invitations (user_id);
    CREATE TABLE user_sessions (
      id uuid PRIMARY KEY DEFAULT gen_uuid_v7(),
      token_hash bytea NOT NULL UNIQUE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      csrf_token text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_seen_at timestamptz NOT NULL DEFAULT now(),
      user_agent text,
      address text
    );
    CREATE INDEX user_sessions_user_idx ON user_sessions (user_id, created_at);
    CREATE TABLE sign_in_failures (
      address text PRIMARY KEY,
      failures int NOT NULL,
      window_start timestamptz NOT NULL
    );
    ALTER TABLE accounts ADD COLUMN require_two_factor boolean NOT NULL DEFAULT false;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
