import type { Knex } from "knex";

// Audit entries name a person by email (docs/USERS.md, "The audit log"): the address of the person who made a
// change signed in, as it was then, kept with the entry (a person removed later is still named). Who writes it:
// operator/auditEventsTable.ts (insertAuditEvent, from the entry's `user:<userId>` key id); entries made before
// this migration are filled in from the people who still exist.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE audit_events ADD COLUMN actor_email text;
    UPDATE audit_events e SET actor_email = u.email
      FROM users u WHERE e.key_id LIKE 'user:%' AND e.key_id = 'user:' || u.id::text;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE audit_events DROP COLUMN actor_email`);
}
