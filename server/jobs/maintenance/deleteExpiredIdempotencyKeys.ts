import { deleteExpiredIdempotencyKeys } from "../../db/idempotencyKeys.js";
import type { Db } from "../../db/knex.js";
import { chore } from "./chore.js";

/** Idempotency keys are answered for 24 h; then they go. */
export const deleteExpiredIdempotencyKeysChore = (db: Db, everyMs = 60_000) =>
  chore("delete expired idempotency keys", everyMs, () => deleteExpiredIdempotencyKeys(db));
