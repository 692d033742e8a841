import type { Db } from "../../db/knex.js";
import { releaseOrphanedParkedDeliveries } from "../../db/webhookDeliveries.js";
import { chore } from "./chore.js";

/** Receipts left parked behind an earlier one that has finished (a crash between finish and release). */
export const releaseOrphanedReceiptsChore = (db: Db, everyMs = 5_000) =>
  chore("release orphaned receipts", everyMs, () => releaseOrphanedParkedDeliveries(db));
