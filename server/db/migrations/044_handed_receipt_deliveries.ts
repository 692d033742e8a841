import type { Knex } from "knex";

// A receipt delivery handed to the worker whose status change made it carries its own lease, instead of a job
// row inserted claimed and deleted when done (two row writes a delivery, four a message: issue "write budget").
// - handed_to: the worker attempting it now, the job's locked_by for a delivery without a job; NULL otherwise
//   (a delivery with a job, or none running).
// - handed_until: its lease, extended by that worker's heartbeat; once past, the rescuer gives the delivery a
//   job (webhookDeliveries.ts, rescueHandedDeliveries).
// Both nullable without a default: added without rewriting the table, at once at any size. The rescuer's index
// holds only handed rows (a few hundred at most, for milliseconds each); built CONCURRENTLY, outside a
// transaction, so writes go on while it reads the table, however large.
// Rolling upgrade: the previous release neither writes nor reads the columns; it never meets a handed delivery
// except once rescued, as a job of its own.
export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE webhook_deliveries ADD COLUMN IF NOT EXISTS handed_to text, ADD COLUMN IF NOT EXISTS handed_until timestamptz;
  `);
  // A build interrupted earlier leaves an INVALID index of the name: dropped and built again.
  await knex.raw(`DROP INDEX CONCURRENTLY IF EXISTS webhook_deliveries_handed_idx`);
  await knex.raw(`
    CREATE INDEX CONCURRENTLY webhook_deliveries_handed_idx ON webhook_deliveries (handed_until) WHERE handed_to IS NOT NULL
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
