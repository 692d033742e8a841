import type { Knex } from "knex";

// Campaign control (docs/API.md, "Campaigns"): a campaign may be `paused` (by POST /campaigns/{id}/pause; its
// scheduled messages stay scheduled, their send jobs parked, and fan-out stops until resumed) or a `draft` (made
// by POST /campaigns/{id}/duplicate: its audience snapshotted, nothing made or sent until resumed). Who moves
// them: the campaigns service (services/campaignControl.ts); resume puts a campaign back to scheduled or
// sending. Nothing reaps them: a paused campaign waits for its owner; its messages' validity still ends.
// paused_at: when it was paused, while it is. started_at: when a draft was resumed (an instant campaign's
// validity counts from it; from created_at for one never a draft).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE campaigns DROP CONSTRAINT campaigns_status_check;
    ALTER TABLE campaigns ADD CONSTRAINT campaigns_status_check
      CHECK (status IN ('draft', 'scheduled', 'sending', 'paused', 'completed', 'cancelled'));
    ALTER TABLE campaigns ADD COLUMN paused_at timestamptz;
    ALTER TABLE campaigns ADD COLUMN started_at timestamptz;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
