import type { Db } from "../../db/knex.js";
import type { Logger } from "../../logger.js";
import { storeIncompleteInboundMessages } from "../../services/inboundParts.js";
import { chore } from "./chore.js";

/**
 * Long inbound messages whose parts are still missing INBOUND_REASSEMBLY_TIMEOUT_MS after the first arrived are
 * stored with what arrived (`incomplete: true`). Run often enough that one is stored within about a tenth of the
 * timeout after it expires (at most every 10 s).
 */
export const storeIncompleteInboundMessagesChore = (db: Db, log: Logger, timeoutMs: number) =>
  chore("store incomplete inbound messages", Math.min(10_000, Math.max(100, Math.floor(timeoutMs / 10))), () =>
    storeIncompleteInboundMessages(db, log, timeoutMs),
  );
