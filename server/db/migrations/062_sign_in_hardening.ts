import type { Knex } from "knex";

// Sign-in hardening (docs/USERS.md).
// - sign_in_locks: sign-in attempts per address (the folded email), known to be a user or not, so an unknown
//   address is locked out exactly as a user is and the lockout says nothing about who is a user. An attempt is
//   counted *before* its password is verified, in one statement (INSERT … ON CONFLICT DO UPDATE … WHERE not
//   locked … RETURNING): the tenth within 15 minutes locks the address for 15 minutes, so at most ten guesses
//   are ever verified in a lock window, concurrent ones included. A sign-in deletes its row; a right password
//   without its second factor gives its attempt back. Wrong codes when turning two-factor sign-in off count
//   here too. Who moves it: the users service (server/operator/users.ts). users.failed_sign_ins and
//   users.locked_until are no longer moved (kept for a release before this one, during a rolling upgrade).
// - users.email: an invitation no longer holds its address across the service (one account's invitation of
//   an address neither blocks nor reveals another's): an address is one *active* user in the service
//   (users_active_email) and one user, invited or active, per account (users_account_email; operator users are
//   one "account", NULLS NOT DISTINCT).
// - Names and addresses are compared by a key that also drops format characters (Unicode Cf: zero-width
//   spaces, bidi controls): existing account name keys and addresses are re-folded; a key that would collide
//   keeps what it was (nothing is renamed). Frozen: the fold is written out here, not imported.
const fold = (text: string): string =>
  text
    .trim()
    .normalize("NFKC")
    .replace(/\p{Cf}/gu, "")
    .toUpperCase()
    .toLowerCase()
    .normalize("NFKC");

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE sign_in_locks (
      email text PRIMARY KEY,
      failures int NOT NULL,
      locked_until timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    ALTER TABLE users DROP CONSTRAINT users_email_key;
    CREATE UNIQUE INDEX users_active_email ON users (email) WHERE password_hash IS NOT NULL;
    CREATE UNIQUE INDEX users_account_email ON users (account_id, email) NULLS NOT DISTINCT;
  `);
  const accounts = await knex.raw<{ rows: { id: string; name: string; name_key: string | null }[] }>(
    `SELECT id, name, name_key FROM accounts ORDER BY created_at, id`,
  );
  for (const a of accounts.rows) {
    const key = fold(a.name);
    if (key && key !== a.name_key && !(a.name_key ?? "").includes("#"))
      await knex.raw(`UPDATE accounts SET name_key = ? WHERE id = ? AND NOT EXISTS (SELECT 1 FROM accounts o WHERE o.name_key = ?)`, [
        key,
        a.id,
        key,
      ]);
  }
  const users = await knex.raw<{ rows: { id: string; email: string }[] }>(`SELECT id, email FROM users ORDER BY created_at, id`);
  for (const u of users.rows) {
    const email = fold(u.email);
    if (email !== u.email && email.length >= 3)
      await knex.raw(`UPDATE users SET email = ? WHERE id = ? AND NOT EXISTS (SELECT 1 FROM users o WHERE o.email = ?)`, [
        email,
        u.id,
        email,
      ]);
  }
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
