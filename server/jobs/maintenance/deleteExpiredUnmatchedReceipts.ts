import type { Db } from "../../db/knex.js";
import { deleteExpiredUnmatchedReceipts } from "../../db/unmatchedReceipts.js";
import { chore } from "./chore.js";

/**
 * Receipts that matched no message are kept to resolve unknown send outcomes; an unknown outcome waits at most
 * SEND_OUTCOME_RESOLVE_MS from when it was declared (a job lease or so after its submit), so a receipt kept
 * twice that long has outlived every message it could resolve.
 */
export const deleteExpiredUnmatchedReceiptsChore = (db: Db, resolveMs: number, everyMs = 60_000) =>
  chore("delete expired unmatched receipts", everyMs, () => deleteExpiredUnmatchedReceipts(db, 2 * resolveMs));
