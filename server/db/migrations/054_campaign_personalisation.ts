import type { Knex } from "knex";

// Campaigns personalised beyond the first name (docs/API.md, "Campaigns"): the audience snapshot keeps each
// recipient's last name and custom fields as they were at creation (as it keeps the first name), so fan-out
// fills `{{lastName}}` and `{{custom.key}}` exactly as creation checked them; `campaigns.fallbacks` holds the
// values a recipient without one gets. Written by the campaigns service at creation, read by the fan-out job.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE campaign_recipients ADD COLUMN last_name text, ADD COLUMN custom_fields jsonb;
    ALTER TABLE campaigns ADD COLUMN fallbacks jsonb;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
