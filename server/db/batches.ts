// The batches table (migration 027): one row per POST /messages/batch, so its cancel knows the batch.
import type { Knex } from "knex";

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

/** Deletes batches created before `before` (retention: their messages are gone by then). */
export async function deleteOldBatches(db: Knex, before: Date): Promise<number> {
  return db("batches").where("created_at", "<", before).del();
}
