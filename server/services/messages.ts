// Scheduling and cancelling a message: the rules (domain/) applied to what is stored (db/).
import type { Knex } from "knex";
import { cancelPendingJob } from "../db/jobs/index.js";
import { cancelScheduledMessage, getMessage, insertScheduledMessage, type NewMessage } from "../db/messages/index.js";
import { deleteThrottledSends } from "../db/throttledSends.js";
import type { Account } from "../operator/index.js";
import { accountSmartEncoding } from "../db/accountSettings.js";
import { getSenderPool } from "../routing/index.js";
import { DomainError, notFound, testKeyNotAllowed } from "../domain/errors.js";
import { optedOutRefusal, refusalError } from "../domain/intakeRefusals.js";
import { NOT_HELD, senderNotAllowed } from "../domain/sendingGuards.js";
import { acceptMessage, needsSmartEncodingDefault, type SendRequest } from "./acceptMessage.js";
import { chargeQuota, countsQuota, cachedPriceBook, priceBookFor, priceOf } from "./acceptance/index.js";
import { retriedTransaction } from "../db/retriedTransaction.js";
import { chargeAccepted, chargeFloor, ensureBalance, insufficientFunds, storeChargedMessage } from "../billing/index.js";
import type { DeploymentDestinations } from "../domain/sendingGuards.js";

/**
 * Checks and stores a message with its send job (one statement; in a transaction with the quota's count when
 * the account has a quota); `now` is the time of the request. `scheduledAt` absent: now (POST /messages). The
 * operator's guards apply: the destination, the sender (a number the account holds, an ID of its list), the
 * daily quota.
 */
export async function scheduleMessage(
  conn: Knex,
  account: Account,
  request: SendRequest,
  now: Date,
  opts: {
    test: boolean;
    destinations: DeploymentDestinations;
    /** A submit_sm's request for a receipt, in its credentials' id format. */
    smppReceipt?: "uuid" | "hex" | "decimal";
    /** The id to give the message (the one a concatenated submit_sm's parts answered with). */
    messageId?: string;
  },
): Promise<{ messageId: string; jobId: string; scheduledAt: Date }> {
  const smartEncodingDefault = needsSmartEncodingDefault(request) && (await accountSmartEncoding(conn, account.id));
  const senderPools =
    request.senderPoolId && (await getSenderPool(conn, account.id, request.senderPoolId)) ? new Set([request.senderPoolId]) : undefined;
  const message = acceptMessage(account, request, {
    now,
    test: opts.test,
    destinations: opts.destinations,
    smartEncodingDefault,
    path: "/body",
    senderPools,
  });
  if (opts.smppReceipt) message.smppReceipt = opts.smppReceipt;
  if (opts.messageId) message.id = opts.messageId;
  if (await storedAndChargedAtOnce(conn, account, message, opts.test))
    return { messageId: message.id, jobId: message.jobId, scheduledAt: message.scheduledAt };
  // Its price, fixed now by the account's price list (none: not priced); charged below unless it is a test.
  const book = await priceBookFor(conn, account.limits);
  if (book) message.price = priceOf(book, message.to, message.segments, "/body/to");
  const charged = message.price && !opts.test ? message.price.amount : undefined;
  const store = async (db: Knex) => {
    await chargeQuota(db, account, message.segments, opts);
    const outcome = await insertScheduledMessage(db, account.id, message);
    if (outcome === "sender_not_held") throw senderNotAllowed(message.from, "/body/from", NOT_HELD);
    if (outcome === "opted_out") throw optedOut(message.to);
    // Last, so the balance row is locked for the shortest time (one account's sends wait on it in turn).
    if (charged !== undefined) await chargeAccepted(db, account.id, account.limits, [{ messageId: message.id, amount: charged }]);
  };
  // A refusal after the quota's count or the charge rolls them back with the transaction.
  if ((countsQuota(account, opts.test) || charged !== undefined) && !conn.isTransaction) await conn.transaction(store);
  else await store(conn);
  return { messageId: message.id, jobId: message.jobId, scheduledAt: message.scheduledAt };
}

/**
 * The common priced send in one statement (billing's storeChargedMessage): a live message of an account with
 * a price list, no daily quota to count, no low-balance threshold to look at, outside a caller's transaction.
 * Priced by this process's copy of the list, which the statement checks is still current (read again once
 * when it is not). False when the message is not such a one, or the copy changed twice meanwhile: it is then
 * stored the general way. A refusal throws as the general way does.
 */
async function storedAndChargedAtOnce(conn: Knex, account: Account, message: NewMessage, test: boolean): Promise<boolean> {
  const limits = account.limits;
  if (test || !limits?.priceList || limits.lowBalanceThreshold !== null || countsQuota(account, test) || conn.isTransaction) return false;
  for (let attempt = 0; attempt < 2; attempt++) {
    const priced = await cachedPriceBook(conn, limits, attempt > 0);
    if (!priced) return false;
    message.price = priceOf(priced.book, message.to, message.segments, "/body/to");
    const charge = { priceList: priced.name, priceVersion: priced.version, floor: chargeFloor(limits) };
    let outcome = await storeChargedMessage(conn, account.id, message, charge);
    if (outcome === "no_balance") {
      await ensureBalance(conn, account.id);
      outcome = await storeChargedMessage(conn, account.id, message, charge);
    }
    if (outcome === "stale_price") continue;
    if (outcome === "sender_not_held") throw senderNotAllowed(message.from, "/body/from", NOT_HELD);
    if (outcome === "opted_out") throw optedOut(message.to);
    if (outcome === "insufficient_funds" || outcome === "no_balance") throw insufficientFunds();
    return true;
  }
  return false;
}

const optedOut = (to: string) => refusalError(optedOutRefusal(to, "/body/to"));

/**
 * scheduled → cancelled, with its job. Repeatable: an already cancelled message gives the same answer. Once
 * sending has begun it is a 409 (the send claim and the cancel are the same conditional UPDATE; one wins).
 */
export async function cancelMessage(
  db: Knex,
  accountId: string,
  messageId: string,
  opts: { testKey?: boolean } = {},
): Promise<{ cancelledAt: Date }> {
  return retriedTransaction(db, async (tx) => {
    // A test key cancels test messages only (one read more, for test keys alone).
    if (opts.testKey && (await getMessage(tx, accountId, messageId))?.test === false) throw testKeyNotAllowed("message");
    const cancelled = await cancelScheduledMessage(tx, accountId, messageId);
    if (cancelled) {
      await cancelPendingJob(tx, accountId, cancelled.jobId);
      // Out of the throughput queue if it was waiting there (after the job: the pacer's lock order).
      await deleteThrottledSends(tx, [{ id: messageId, accountId }]);
      return { cancelledAt: cancelled.cancelledAt };
    }
    const message = await getMessage(tx, accountId, messageId);
    if (!message) throw notFound("Message");
    if (message.status === "cancelled" && message.cancelledAt) return { cancelledAt: message.cancelledAt };
    throw new DomainError(
      "not_cancellable",
      `The message can no longer be cancelled: sending has begun (status ${message.status === "sending" ? "scheduled, sending" : message.status}).`,
    );
  });
}
