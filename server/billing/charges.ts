// Prices fixed and charged when a message is accepted (docs/BILLING.md): the account's price list made into a
// price book (cached per process, read again whenever the list changed), and the charge debited in the
// transaction that stores the message. A prepaid account may not go below -creditLimit: 402.
import type { Knex } from "knex";
import { DomainError } from "../domain/errors.js";
import { fundsRefusal, refusalError } from "../domain/intakeRefusals.js";
import type { AccountLimits } from "../operator/index.js";
import { insertEventDeliveries } from "../db/webhookDeliveries.js";
import { balanceLowBody } from "../domain/events.js";
import { chargeMessages, ensureBalance, noteLowBalance, type Charge } from "./ledgerTable.js";
import { findPriceList, priceListVersion } from "./priceListsTable.js";
import { priceBook, type PriceBook } from "./priceRules.js";

const books = new Map<string, { version: number; book: PriceBook }>();

/** The price book of the account's price list, or undefined when it has none (nothing is priced). */
export async function priceBookFor(db: Knex, limits: AccountLimits | undefined): Promise<PriceBook | undefined> {
  const name = limits?.priceList;
  if (!name) return undefined;
  const version = (await priceListVersion(db, name))?.getTime();
  if (version === undefined) return undefined;
  const cached = books.get(name);
  if (cached?.version === version) return cached.book;
  const row = await findPriceList(db, name);
  if (!row) return undefined;
  const book = priceBook(row);
  books.set(name, { version: row.updatedAt.getTime(), book });
  return book;
}

/**
 * The price book of the account's price list as this process last read it, with its version, without asking
 * the database whether it changed: for a statement that checks the version itself (storeChargedMessage) and
 * reads it again (`fresh`) when it did. Undefined without a price list.
 */
export async function cachedPriceBook(
  db: Knex,
  limits: AccountLimits | undefined,
  fresh = false,
): Promise<{ name: string; book: PriceBook; version: Date } | undefined> {
  const name = limits?.priceList;
  if (!name) return undefined;
  let cached = fresh ? undefined : books.get(name);
  if (!cached) {
    const row = await findPriceList(db, name);
    if (!row) return undefined;
    cached = { version: row.updatedAt.getTime(), book: priceBook(row) };
    books.set(name, cached);
  }
  return { name, book: cached.book, version: new Date(cached.version) };
}

/** The lowest a charge may take the balance to: -creditLimit when prepaid, none when postpaid. */
export const chargeFloor = (limits: AccountLimits | undefined): number | null =>
  limits?.billing === "prepaid" ? -limits.creditLimit : null;

export function insufficientFunds(path = "/body"): DomainError {
  return refusalError(fundsRefusal(path));
}

/** Debits the charges in the caller's transaction; 402 when a prepaid balance cannot pay them all. */
export async function chargeAccepted(tx: Knex, accountId: string, limits: AccountLimits | undefined, charges: Charge[]): Promise<void> {
  if (charges.length === 0) return;
  const floor = chargeFloor(limits);
  if ((await chargeMessages(tx, accountId, charges, floor)) === undefined) {
    // No balance row yet (an account priced before its first charge made one): make it, and try once more.
    await ensureBalance(tx, accountId);
    if ((await chargeMessages(tx, accountId, charges, floor)) === undefined) throw insufficientFunds();
  }
  await balanceMoved(tx, accountId, limits);
}

/**
 * After the account's balance moved: `account.balance_low` to its webhooks when it has just gone below its
 * threshold (once per crossing: the flag is reset when it is back at or above it). Nothing to do without one.
 */
export async function balanceMoved(tx: Knex, accountId: string, limits: AccountLimits | undefined): Promise<void> {
  const threshold = limits?.lowBalanceThreshold ?? null;
  // No threshold, nothing to look at (a statement saved on every charge). Its flag is set right again by the
  // first charge after a threshold is set.
  if (threshold === null) return;
  const low = await noteLowBalance(tx, accountId, threshold);
  if (low === undefined) return;
  const body = balanceLowBody({ at: new Date(), balance: low, threshold, currency: limits!.currency });
  await insertEventDeliveries(tx, accountId, { event: "account.balance_low", body, messageId: null, seq: 1 });
}
