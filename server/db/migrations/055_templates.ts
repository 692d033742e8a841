import type { Knex } from "knex";

// Message templates (docs/API.md, "Templates"): an account's reusable texts, by a name unique regardless of
// case. A message or campaign made from one keeps its id (`template_id`, no foreign key: a template's deletion
// is refused while it is in use, and the messages and campaigns it made outlive it), so the delete can tell
// whether it is in use: a campaign scheduled or sending, or a message still scheduled or sending (found
// through messages_pending_page_idx). Who writes them: the templates service; messages and campaigns set
// template_id when they are made, and never change it.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE templates (
      id uuid PRIMARY KEY DEFAULT gen_uuid_v7(),
      account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
      body text NOT NULL,
      category text CHECK (category IN ('marketing', 'transactional')),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX templates_account_name_key ON templates (account_id, lower(name));
    CREATE INDEX templates_account_page_idx ON templates (account_id, created_at DESC, id DESC);
    ALTER TABLE messages ADD COLUMN template_id uuid;
    ALTER TABLE campaigns ADD COLUMN template_id uuid;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
