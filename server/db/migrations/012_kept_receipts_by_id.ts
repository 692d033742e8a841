import type { Knex } from "knex";

// A receipt whose id no submit had recorded yet is kept after a few lookups (db/unmatchedReceipts.ts). The
// submit's answer can still be recorded after that (a worker stalled between the SMSC's answer and its write),
// and then the kept receipt belongs to a known message, not to an unknown outcome: it is applied as the job it
// came as (kind and payload kept here). The index serves the chore that finds kept receipts whose id is now known.
// messages.unknown_resent_at: with SEND_OUTCOME_UNRESOLVED=resend, when an unknown outcome no receipt resolved
// was sent again; a message is sent again for that reason once at most.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE unmatched_receipts ADD COLUMN job_kind text, ADD COLUMN job_payload jsonb,
      ADD CHECK ((job_kind IS NULL) = (job_payload IS NULL));
    CREATE INDEX unmatched_receipts_provider_id_idx ON unmatched_receipts (provider_message_id);
    ALTER TABLE messages ADD COLUMN unknown_resent_at timestamptz;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
