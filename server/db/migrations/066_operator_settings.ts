import type { Knex } from "knex";

// The operator's own settings, one row: whether every operator user must sign in with a second factor (docs/USERS.md,
// "Two-factor sign-in"). Who writes it: operator/users.ts (setOperatorTwoFactorRequirement, PUT
// /operator-users/two-factor-requirement); sign-in and every session read it for operator users, as they read an
// account's `require_two_factor` for its users.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE operator_settings (
      singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      require_two_factor boolean NOT NULL DEFAULT false
    );
    INSERT INTO operator_settings DEFAULT VALUES;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TABLE operator_settings`);
}
