import type { Knex } from "knex";

// Richer contacts (docs/API.md, "Contacts"): a last name, tags (up to 20, a contact found by one through
// contacts_tags_idx) and custom fields (up to 20 keys, string values) for personalisation. Added with constant
// defaults: PostgreSQL 11+ adds them without rewriting the table. Who writes them: the contacts service
// (server/services/contacts.ts), through db/contacts.ts; the limits are checked there, not here, so a later
// change of a limit needs no migration.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE contacts ADD COLUMN last_name text,
                         ADD COLUMN tags text[] NOT NULL DEFAULT '{}',
                         ADD COLUMN custom_fields jsonb NOT NULL DEFAULT '{}';
    CREATE INDEX contacts_tags_idx ON contacts USING gin (tags);
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
