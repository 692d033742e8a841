import type { Knex } from "knex";

// Why a campaign's recipients got no message (docs/API.md, "Campaigns": stats.skippedBy): counts by reason
// (`destination_not_allowed`, `missing_value`, `blocked`, …) beside `skipped`, their sum. Who writes it: campaign
// creation (services/campaigns.ts) and fan-out (jobs/handlers/campaignFanout.ts), in the transactions that
// leave the recipients out. Campaigns made before it kept no reasons: theirs are counted as `unrecorded`.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE campaigns ADD COLUMN skipped_by jsonb NOT NULL DEFAULT '{}';
    UPDATE campaigns SET skipped_by = jsonb_build_object('unrecorded', skipped) WHERE skipped > 0;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE campaigns DROP COLUMN skipped_by`);
}
