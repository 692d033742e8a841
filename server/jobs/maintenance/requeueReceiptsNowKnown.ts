import type { Db } from "../../db/knex.js";
import { requeueReceiptsNowKnown } from "../../db/unmatchedReceipts.js";
import { chore } from "./chore.js";

/**
 * A receipt is kept as unmatched after a few lookups of its id; if the submit's answer is recorded after that
 * (the worker stalled between the SMSC's answer and its write), the receipt must still reach its message, or
 * the message would wait in `sent` for a receipt that came. This finds such receipts and queues them again.
 * The table is empty but for rare races, so a frequent look is cheap (an index probe per kept receipt).
 */
export const requeueReceiptsNowKnownChore = (db: Db, everyMs = 2_000) =>
  chore("requeue receipts now known", everyMs, () => requeueReceiptsNowKnown(db));
