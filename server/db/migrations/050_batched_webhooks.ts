import type { Knex } from "knex";

// A webhook may take its events in batches: one signed POST of `{ "events": [ … ] }` for up to
// batch_max_events of them, the first waiting at most batch_max_delay_ms (both NULL: one POST per event, the
// default). A batched webhook's deliveries have no job and no lease of their own: the webhook row holds the
// one batch in flight (jobs/receiptBatches.ts).
// - batch_held_by / batch_held_until: the worker posting its batch now, and until when; set by the claim,
//   cleared by the batch's outcome. Past batch_held_until (its worker died) another worker claims it again.
// - batch_retry_at: after a failed batch, no batch goes out before it (the backoff of the oldest event's
//   attempts); cleared by a success.
// The webhooks table is small (a few per account): the columns, the check and the index are added at once.
// Rolling upgrade: the previous release neither writes nor reads the columns; a batch is set only through this
// release's API, and its deliveries made by a previous-release worker get a job, which this release's
// dispatcher hands to the batches (deliverReceipt.ts).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE webhooks
      ADD COLUMN batch_max_events int CHECK (batch_max_events BETWEEN 1 AND 1000),
      ADD COLUMN batch_max_delay_ms int CHECK (batch_max_delay_ms BETWEEN 0 AND 60000),
      ADD COLUMN batch_held_by text,
      ADD COLUMN batch_held_until timestamptz,
      ADD COLUMN batch_retry_at timestamptz,
      ADD CONSTRAINT webhooks_batch_whole CHECK ((batch_max_events IS NULL) = (batch_max_delay_ms IS NULL));
    -- What the batch collector polls: only the batched webhooks, however many others there are.
    CREATE INDEX webhooks_batched_idx ON webhooks (id) WHERE batch_max_events IS NOT NULL;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
