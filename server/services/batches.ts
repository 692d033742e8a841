// POST /messages/batch: up to 10,000 distinct messages. Every item passes the checks of POST /messages; every
// valid one is stored and every invalid one reported by its index, in one transaction (nothing half-stored).
// The checks that need the database are set-wise: one query for the opt-outs among the recipients, one for
// the numbers held among the senders, the messages and their jobs inserted a chunk at a time.
import type { Knex } from "knex";
import type { components } from "../../generated/api.js";
import { accountSmartEncoding } from "../db/accountSettings.js";
import type { Account } from "../db/accounts.js";
import { insertBatch, lockBatch } from "../db/batches.js";
import { cancelBatchMessages, insertMessagesWithJobs, type NewMessage } from "../db/messages/index.js";
import { heldAmong } from "../db/numbers.js";
import { optedOutAmong } from "../db/optOuts.js";
import { deleteThrottledSendsOfBatch } from "../db/throttledSends.js";
import { DomainError, notFound } from "../domain/errors.js";
import { NOT_HELD } from "../domain/sendingGuards.js";
import { uuidv7 } from "../domain/uuidv7.js";
import { acceptMessage, needsSmartEncodingDefault, type SendRequest } from "./acceptMessage.js";
import { chargeQuota } from "./quota.js";
import { mapYielding } from "./yieldingMap.js";

type ItemResult = components["schemas"]["BatchItemResult"];
export type BatchItemError = components["schemas"]["BatchItemError"];

/** Rows per INSERT: a campaign's fan-out batch. */
const INSERT_CHUNK = 5000;

/**
 * Stores a batch. `items[i]` is a request that passed the schema, or the schema's error for it. Returns the
 * results in item order. The quota counts the accepted items together: over it, nothing is stored (429).
 */
export async function sendBatch(
  db: Knex,
  account: Account,
  items: (SendRequest | BatchItemError)[],
  opts: { now: Date; test: boolean },
): Promise<components["schemas"]["SendBatchResult"]> {
  const batchId = uuidv7();
  const requests = items.filter((i): i is SendRequest => !("code" in i));
  const smartEncodingDefault = requests.some(needsSmartEncodingDefault) && (await accountSmartEncoding(db, account.id));
  const outcomes: (NewMessage | BatchItemError)[] = await mapYielding(items, (item, index) => {
    if ("code" in item) return item;
    try {
      return acceptMessage(account, item, { ...opts, smartEncodingDefault, path: `/body/messages/${index}`, batchId });
    } catch (error) {
      if (error instanceof DomainError) return { code: error.code, detail: error.detail, path: error.errors?.[0]?.path ?? null };
      throw error;
    }
  });
  const isMessage = (o: NewMessage | BatchItemError): o is NewMessage => "id" in o;
  const accepted = outcomes.filter(isMessage);
  const optedOut = await optedOutAmong(db, account.id, [...new Set(accepted.map((m) => m.to))]);
  const held = await heldAmong(db, account.id, [...new Set(accepted.map((m) => m.from).filter((f) => f.startsWith("+")))]);
  const results: ItemResult[] = outcomes.map((o, index) => {
    if (!isMessage(o)) return { index, error: o };
    if (o.from.startsWith("+") && !held.has(o.from)) {
      return {
        index,
        error: { code: "sender_not_allowed", detail: `The sender ${o.from} ${NOT_HELD}.`, path: `/body/messages/${index}/from` },
      };
    }
    if (optedOut.has(o.to)) {
      return {
        index,
        error: { code: "recipient_opted_out", detail: `${o.to} is on this account's opt-out list.`, path: `/body/messages/${index}/to` },
      };
    }
    return { index, messageId: o.id };
  });
  const stored = accepted.filter((m) => !optedOut.has(m.to) && (!m.from.startsWith("+") || held.has(m.from)));
  const store = async (tx: Knex) => {
    await chargeQuota(
      tx,
      account,
      stored.reduce((sum, m) => sum + m.segments, 0),
      opts,
    );
    await insertBatch(tx, account.id, { id: batchId, accepted: stored.length, rejected: items.length - stored.length });
    for (let i = 0; i < stored.length; i += INSERT_CHUNK) await insertMessagesWithJobs(tx, account.id, stored.slice(i, i + INSERT_CHUNK));
  };
  if (db.isTransaction) await store(db);
  else await db.transaction(store);
  return { batchId, accepted: stored.length, rejected: items.length - stored.length, results };
}

/** Cancels what of the batch is still cancellable; repeatable (0 the second time). */
export async function cancelBatch(db: Knex, accountId: string, batchId: string): Promise<number> {
  return db.transaction(async (tx) => {
    if (!(await lockBatch(tx, accountId, batchId))) throw notFound("Batch");
    const cancelled = await cancelBatchMessages(tx, accountId, batchId);
    await deleteThrottledSendsOfBatch(tx, accountId, batchId);
    return cancelled;
  });
}
