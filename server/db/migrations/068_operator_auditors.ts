import type { Knex } from "knex";

// Operator users get a second role, `auditor`, who reads the operator API and changes nothing (docs/USERS.md,
// "Operator users"). Who writes it: operator/users.ts (an invitation's role) and operator/operatorRoles.ts
// (PATCH /operator-users/{userId}); the access gate (http/access.ts) refuses an auditor's changes.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE users DROP CONSTRAINT users_role_check, DROP CONSTRAINT users_check;
    ALTER TABLE users
      ADD CONSTRAINT users_role_check CHECK (role IN ('owner', 'admin', 'developer', 'viewer', 'operator', 'auditor')),
      ADD CONSTRAINT users_check CHECK ((account_id IS NULL) = (role IN ('operator', 'auditor')));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DELETE FROM users WHERE role = 'auditor';
    ALTER TABLE users DROP CONSTRAINT users_role_check, DROP CONSTRAINT users_check;
    ALTER TABLE users
      ADD CONSTRAINT users_role_check CHECK (role IN ('owner', 'admin', 'developer', 'viewer', 'operator')),
      ADD CONSTRAINT users_check CHECK ((account_id IS NULL) = (role = 'operator'));
  `);
}
