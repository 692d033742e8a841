import type { Knex } from "knex";

// Password reset links (docs/USERS.md, "Passwords"): the sha256 of each link's token, whose user it resets, and
// until when. Who writes it: operator/passwordReset.ts (a link mailed on request, or issued by an owner or an
// admin); a used link, and every other link of its user, is deleted when the new password is set; expired ones
// are deleted with the next link of the same user (they are refused by their expires_at meanwhile).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE password_resets (
      token_hash bytea PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      expires_at timestamptz NOT NULL
    );
    CREATE INDEX password_resets_user_idx ON password_resets (user_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TABLE password_resets`);
}
