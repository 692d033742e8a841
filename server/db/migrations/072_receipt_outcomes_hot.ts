import type { Knex } from "knex";

// A receipt delivery's outcome is a HOT update (docs/ARCHITECTURE.md, "A receipt's outcome is a HOT update"):
// the update that records a success (status, finished_at, attempts) changes no column any index of
// webhook_deliveries holds in its keys or its predicate, so it writes no index entry, and on a page with room no
// new page either: fillfactor 50, since every row is updated once, whole (its body is most of it), soon after it
// is written; at 85 and 60, 0.5 and 0.25 outcomes a delivery still went to a new page (bench:smpp, bench/NOTES.md). Before this, it wrote two index entries a delivery: the outcome moved the
// row out of webhook_deliveries_status_page_idx (keyed and filtered on `status`) and ended its lease
// (`handed_to`/`handed_until`, the rescuer's index). What replaces them:
// - receipt_handoffs: the lease of the deliveries one status change hands to its worker (one row a statement,
//   not one a delivery): who holds them, until when, and which deliveries (`account_ids`, `delivery_ids`: their
//   keys, in the same order). The worker's
//   heartbeat extends the row; the worker deletes it once every delivery of it has an outcome; the rescuer
//   gives the still pending ones of an expired row a job each and deletes it. A delivery's `handoff_id`, in no
//   index, says which handoff answers for it; an outcome that goes on (a retry as a job, a park, a batch) clears
//   it. Who writes it: db/receiptHandoffs.ts (the insert, in db/messages/statusChange.ts's statement; the
//   extension, the delete, the rescue).
// - gave_up: the delivery failed for good (status 'failed'), a column of its own so that the failed list
//   (webhook_deliveries_failed_page_idx) names no column a success changes. Written with `status`.
// - awaits_batch: a batched webhook's delivery waiting for its batch (webhook_deliveries_batch_waiting_idx, which
//   the batch claim walks oldest first). Set where a delivery is given to the batches (inserted for a batched
//   webhook, handed to them by its job, redelivered), cleared where it leaves them (the batch's outcome,
//   batching turned off).
// The pending list has no index of its own any more: it reads the webhook's log newest first
// (webhook_deliveries_webhook_page_idx), where pending deliveries are (they are the newest: a delivery is
// retried at most three times).
// Expand: the previous release, beside this one during a rolling upgrade, still hands deliveries with
// handed_to/handed_until (this release rescues those too) and writes outcomes without gave_up/awaits_batch: its
// failed deliveries are missing from the failed list, and a batch outcome it records leaves awaits_batch set on
// a finished delivery (the batch claim also asks for `status = 'pending'`), until the contract a release later
// fills both again and drops handed_to, handed_until and their index (docs/OPERATIONS.md, "Upgrade").
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE receipt_handoffs (
      id uuid PRIMARY KEY DEFAULT gen_uuid_v7(),
      handed_to text NOT NULL,
      handed_until timestamptz NOT NULL,
      account_ids uuid[] NOT NULL,
      delivery_ids uuid[] NOT NULL,
      CHECK (cardinality(account_ids) = cardinality(delivery_ids))
    );
    ALTER TABLE webhook_deliveries
      ADD COLUMN handoff_id uuid,
      ADD COLUMN gave_up boolean NOT NULL DEFAULT false,
      ADD COLUMN awaits_batch boolean NOT NULL DEFAULT false;
    UPDATE webhook_deliveries SET gave_up = true WHERE status = 'failed';
    UPDATE webhook_deliveries d SET awaits_batch = true
      FROM webhooks w
     WHERE w.id = d.webhook_id AND w.batch_max_events IS NOT NULL
       AND d.status = 'pending' AND NOT d.parked AND d.handed_to IS NULL;
    DROP INDEX webhook_deliveries_status_page_idx;
    CREATE INDEX webhook_deliveries_failed_page_idx ON webhook_deliveries (webhook_id, created_at DESC, id DESC) WHERE gave_up;
    CREATE INDEX webhook_deliveries_batch_waiting_idx ON webhook_deliveries (webhook_id, created_at, id) WHERE awaits_batch;
    ALTER TABLE webhook_deliveries SET (fillfactor = 50);
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
