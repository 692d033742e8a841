// The batches table (migration 027): one row per POST /messages/batch, so its cancel knows the batch.
import type { Knex } from "knex";
import { run, sql } from "./sql.js";

export async function insertBatch(tx: Knex, accountId: string, batch: { id: string; accepted: number; rejected: number }): Promise<void> {
  await tx("batches").insert({ id: batch.id, account_id: accountId, accepted: batch.accepted, rejected: batch.rejected });
}

/** Locks the account's batch (serialising its cancels); false when there is no such batch. */
export async function lockBatch(tx: Knex.Transaction, accountId: string, batchId: string): Promise<boolean> {
  return (await tx("batches").where({ account_id: accountId, id: batchId }).forUpdate().first("id")) !== undefined;
}

/** True when a message of the batch was sent with a live key (a test key's batches hold test messages only). */
export async function batchHasLiveMessages(tx: Knex, accountId: string, batchId: string): Promise<boolean> {
  return (await tx("messages").where({ account_id: accountId, batch_id: batchId, test: false }).first("id")) !== undefined;
}

/**
 * Deletes up to `limit` batches created before `before` that no message names any more (retention: an account
 * that keeps its messages longer keeps their batch too), oldest first; returns how many.
 */
export async function deleteOldBatches(db: Knex, before: Date, limit: number): Promise<number> {
  const { rowCount } = await run(
    db,
    sql`DELETE FROM batches WHERE id = ANY(ARRAY(
          SELECT b.id FROM batches b
           WHERE b.created_at < ${before} AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.batch_id = b.id)
           ORDER BY b.created_at LIMIT ${limit}))`,
  );
  return rowCount;
}
