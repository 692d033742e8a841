// What the operator changes of billing (docs/BILLING.md): price lists, an account's billing fields (checked
// against its price list), credits.
import type { Knex } from "knex";
import { DomainError, invalidField, notFound } from "../domain/errors.js";
import { checkCurrency } from "../domain/isoCodes.js";
import { getAccount, updateAccount, type AccountChange } from "../operator/index.js";
import { balanceMoved } from "./charges.js";
import { creditAccount, ensureBalance, type LedgerEntryRow } from "./ledgerTable.js";
import { deletePriceList, findPriceList, priceListInUse, upsertPriceList, type PriceListRow } from "./priceListsTable.js";
import { checkPriceEntries, type PriceEntry } from "./priceRules.js";

const BILLING_FIELDS = ["currency", "priceList", "billing", "creditLimit", "lowBalanceThreshold", "chargeOn"] as const;

/**
 * The operator's change of an account; billing fields checked: the currency is ISO 4217 (400), the price list exists (422
 * `price_list_not_found`) and is in the account's currency (422 `currency_mismatch`). False: no such account.
 */
export async function changeAccount(db: Knex, accountId: string, change: AccountChange): Promise<boolean> {
  if (!BILLING_FIELDS.some((f) => change[f] !== undefined)) return updateAccount(db, accountId, change);
  if (change.currency !== undefined) checkCurrency(change.currency, "/body/currency");
  return db.transaction(async (tx) => {
    const current = await getAccount(tx, accountId);
    if (!current) return false;
    const currency = change.currency ?? current.limits.currency;
    const priceList = change.priceList === undefined ? current.limits.priceList : change.priceList;
    if (priceList !== null) {
      const list = await findPriceList(tx, priceList);
      if (!list) {
        throw new DomainError("price_list_not_found", `There is no price list ${priceList}.`, {
          errors: [{ path: "/body/priceList", message: "no such price list" }],
        });
      }
      if (list.currency !== currency) {
        throw new DomainError("currency_mismatch", `Price list ${priceList} is in ${list.currency}; the account is in ${currency}.`, {
          errors: [{ path: change.currency !== undefined ? "/body/currency" : "/body/priceList", message: "currencies differ" }],
        });
      }
    }
    await updateAccount(tx, accountId, change);
    await ensureBalance(tx, accountId);
    return true;
  });
}

/**
 * Makes or replaces a price list: its currency ISO 4217 and its countries ISO 3166-1 alpha-2 that exist (400 naming
 * the field); a currency change of a list in use is 409 `price_list_in_use`.
 */
export async function putPriceList(
  db: Knex,
  name: string,
  body: { currency: string; entries: PriceEntry[]; default?: number | null },
): Promise<{ row: PriceListRow; created: boolean }> {
  checkCurrency(body.currency, "/body/currency");
  checkPriceEntries(body.entries);
  return db.transaction(async (tx) => {
    const before = await findPriceList(tx, name);
    if (before && before.currency !== body.currency && (await priceListInUse(tx, name))) {
      throw new DomainError("price_list_in_use", `Accounts use price list ${name} in ${before.currency}: its currency cannot change.`);
    }
    return upsertPriceList(tx, { name, currency: body.currency, entries: body.entries, default: body.default ?? null });
  });
}

export async function removePriceList(db: Knex, name: string): Promise<void> {
  const outcome = await deletePriceList(db, name);
  if (outcome === "missing") throw notFound("Price list");
  if (outcome === "in_use") throw new DomainError("price_list_in_use", `Accounts use price list ${name}: give them another first.`);
}

/** An operator's credit (or correction) to an account; its ledger entry. */
export async function creditOf(db: Knex, accountId: string, amount: number, note: string): Promise<LedgerEntryRow> {
  if (amount === 0) throw invalidField("/body/amount", "must not be zero");
  const account = await getAccount(db, accountId);
  if (!account) throw notFound("Account");
  return db.transaction(async (tx) => {
    const entry = await creditAccount(tx, accountId, amount, note);
    await balanceMoved(tx, accountId, account.limits);
    return entry;
  });
}
