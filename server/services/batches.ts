// POST /messages/batch: up to 10,000 distinct messages. Every item passes the checks of POST /messages; every
// valid one is stored and every invalid one reported by its index, in one transaction (nothing half-stored).
// The checks that need the database are the intake stages (services/acceptance/), set-wise a chunk at a time:
// one query for the numbers held among the senders, one for the opt-outs among the recipients; then the
// messages and their jobs inserted.
import type { Knex } from "knex";
import type { components } from "../../generated/api.js";
import { accountSmartEncoding } from "../db/accountSettings.js";
import { listSenderPools } from "../routing/index.js";
import type { Account } from "../operator/index.js";
import { batchHasLiveMessages, insertBatch, lockBatch } from "../db/batches.js";
import { cancelBatchMessages, insertMessagesWithJobs, type NewMessage } from "../db/messages/index.js";
import { deleteThrottledSendsOfBatch } from "../db/throttledSends.js";
import { DomainError, notFound, testKeyNotAllowed } from "../domain/errors.js";
import { refusalItem } from "../domain/intakeRefusals.js";
import { destinationsOf } from "../domain/sendingGuards.js";
import { uuidv7 } from "../domain/uuidv7.js";
import { acceptMessage, needsSmartEncodingDefault, type SendRequest } from "./acceptMessage.js";
import { chargeQuota, screen, type IntakeContext, priceBookFor, priceOf, type PriceBook } from "./acceptance/index.js";
import { mapYielding } from "./yieldingMap.js";
import { retriedTransaction } from "../db/retriedTransaction.js";
import { chargeAccepted, ensureBalance, lockBalance } from "../billing/index.js";
import type { DeploymentDestinations } from "../domain/sendingGuards.js";

type ItemResult = components["schemas"]["BatchItemResult"];
export type BatchItemError = components["schemas"]["BatchItemError"];

/**
 * Stores a batch. `items[i]` is a request that passed the schema, or the schema's error for it. Returns the
 * results in item order. The quota counts the accepted items (over it: 429, nothing stored).
 *
 * A chunk at a time, pipelined: while PostgreSQL inserts one chunk's messages and jobs (the statement is sent
 * and not awaited; the transaction's connection runs its statements in order), this process checks the next
 * chunk's items (libphonenumber, ~17 µs an item). bench:sendnow: 10,000 items in ~480 ms one after the other,
 * the two overlapped on two cores (bench/NOTES.md).
 */
export async function sendBatch(
  db: Knex,
  account: Account,
  items: (SendRequest | BatchItemError)[],
  opts: { now: Date; test: boolean; destinations: DeploymentDestinations },
): Promise<components["schemas"]["SendBatchResult"]> {
  const batchId = uuidv7();
  const requests = items.filter((i): i is SendRequest => !("code" in i));
  const smartEncodingDefault = requests.some(needsSmartEncodingDefault) && (await accountSmartEncoding(db, account.id));
  const senderPools = requests.some((r) => r.senderPoolId !== undefined)
    ? new Set((await listSenderPools(db, account.id)).map((p) => p.id))
    : undefined;
  const book = await priceBookFor(db, account.limits);
  const results: ItemResult[] = [];
  let stored = 0;
  const store = async (tx: Knex) => {
    const inserts: Promise<void>[] = [];
    // What a prepaid account may still spend, its balance row locked for the batch (an item it cannot pay is
    // refused, the items before it kept); unlimited when postpaid, test or not priced.
    const intake: IntakeContext = { db: tx, accountId: account.id, destinations: destinationsOf(account.limits, opts.destinations) };
    if (book && !opts.test && account.limits?.billing === "prepaid") {
      await ensureBalance(tx, account.id);
      intake.budget = { available: (await lockBalance(tx, account.id)) + account.limits.creditLimit };
    }
    try {
      for (let from = 0; from < items.length; from += CHUNK) {
        const chunk = await mapYielding(items.slice(from, from + CHUNK), (item, i) =>
          accept(account, item, from + i, { ...opts, smartEncodingDefault, batchId, senderPools, book }),
        );
        const made = chunk.flatMap((o, i) => (isMessage(o) ? [{ m: o, index: from + i }] : []));
        // The destination was judged as each message was made (acceptMessage): here, the stages that read the database.
        const { refused } = await screen(
          intake,
          made.map(({ m, index }) => ({
            to: m.to,
            from: m.from,
            cost: m.price && !opts.test ? m.price.amount : 0,
            path: `/body/messages/${index}`,
          })),
          ["held_sender", "opt_out", "funds"],
        );
        const refusalAt = new Map(made.flatMap(({ index }, j) => (refused.has(j) ? [[index, refused.get(j)!.refusal] as const] : [])));
        const keep: NewMessage[] = [];
        chunk.forEach((o, i) => {
          const index = from + i;
          if (!isMessage(o)) return void results.push({ index, error: o });
          const refusal = refusalAt.get(index);
          if (refusal) return void results.push({ index, error: refusalItem(refusal) });
          keep.push(o);
          results.push({ index, messageId: o.id });
        });
        await chargeQuota(
          tx,
          account,
          keep.reduce((sum, m) => sum + m.segments, 0),
          opts,
        );
        stored += keep.length;
        inserts.push(insertMessagesWithJobs(tx, account.id, keep));
        if (book && !opts.test) {
          const charges = keep.map((m) => ({ messageId: m.id, amount: m.price!.amount, batchId }));
          inserts.push(chargeAccepted(tx, account.id, account.limits, charges));
        }
      }
      await Promise.all(inserts);
    } catch (error) {
      // The transaction rolls back; the statements still queued fail with it.
      for (const insert of inserts) insert.catch(() => {});
      throw error;
    }
    await insertBatch(tx, account.id, { id: batchId, accepted: stored, rejected: items.length - stored });
  };
  if (db.isTransaction) await store(db);
  else await db.transaction(store);
  return { batchId, accepted: stored, rejected: items.length - stored, results };
}

/** Items checked per chunk (and messages per INSERT). */
const CHUNK = 2000;

const isMessage = (o: NewMessage | BatchItemError): o is NewMessage => "id" in o;

/** One item checked: its message, or why not. */
function accept(
  account: Account,
  item: SendRequest | BatchItemError,
  index: number,
  ctx: {
    now: Date;
    test: boolean;
    destinations: DeploymentDestinations;
    smartEncodingDefault: boolean;
    batchId: string;
    senderPools?: ReadonlySet<string>;
    book?: PriceBook;
  },
): NewMessage | BatchItemError {
  if ("code" in item) return item;
  try {
    const message = acceptMessage(account, item, { ...ctx, path: `/body/messages/${index}` });
    if (ctx.book) message.price = priceOf(ctx.book, message.to, message.segments, `/body/messages/${index}/to`);
    return message;
  } catch (error) {
    if (error instanceof DomainError) return { code: error.code, detail: error.detail, path: error.errors?.[0]?.path ?? null };
    throw error;
  }
}

/** Cancels what of the batch is still cancellable; repeatable (0 the second time). */
export async function cancelBatch(db: Knex, accountId: string, batchId: string, opts: { testKey?: boolean } = {}): Promise<number> {
  return retriedTransaction(db, async (tx) => {
    if (!(await lockBatch(tx, accountId, batchId))) throw notFound("Batch");
    if (opts.testKey && (await batchHasLiveMessages(tx, accountId, batchId))) throw testKeyNotAllowed("batch");
    const cancelled = await cancelBatchMessages(tx, accountId, batchId);
    await deleteThrottledSendsOfBatch(tx, accountId, batchId);
    return cancelled;
  });
}
