import { setTimeout as sleep } from "node:timers/promises";
import type { Knex } from "knex";
import { isRolledBackByConflict } from "./errors.js";

/**
 * Runs `work` in a transaction, and runs it again, whole, while PostgreSQL ends it to break a deadlock or a
 * serialization conflict (it rolled all of it back, so nothing of the failed try is left). For a request
 * that writes many rows others write too: a campaign's cancel takes thousands of messages and jobs that send
 * windows and the pacer are taking at the same moment, and PostgreSQL ends one side of a deadlock by failing it.
 * The caller then sees its answer, not a 500. `work` must do nothing outside the transaction.
 */
export async function retriedTransaction<T>(db: Knex, work: (tx: Knex.Transaction) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await db.transaction(work);
    } catch (error) {
      if (attempt >= attempts || !isRolledBackByConflict(error)) throw error;
      await sleep(10 * 2 ** attempt);
    }
  }
}
