import type { Knex } from "knex";

// Several groups per contact (docs/API.md, "Contacts"): memberships move from contacts.group_id to
// contact_groups, one row per contact and group, `position` keeping the order the contact's groups were given
// in (its `groupId` is the first of them). Both foreign keys cascade: deleting a contact or a group removes its
// memberships, atomically, so no membership ever names a missing group. Who writes it: db/contacts.ts (a
// contact's groups are replaced whole); db/groups.ts counts it; a group campaign's audience is read through
// contact_groups_group_idx.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE contact_groups (
      account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      contact_id uuid NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
      group_id uuid NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
      position smallint NOT NULL,
      PRIMARY KEY (contact_id, group_id)
    );
    CREATE INDEX contact_groups_group_idx ON contact_groups (account_id, group_id, contact_id);
    INSERT INTO contact_groups (account_id, contact_id, group_id, position)
      SELECT account_id, id, group_id, 1 FROM contacts WHERE group_id IS NOT NULL;
    ALTER TABLE contacts DROP COLUMN group_id;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
