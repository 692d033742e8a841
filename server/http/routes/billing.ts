// Prices, balances and the ledger (docs/BILLING.md): the operator's price lists and credits, the account's
// balance and ledger.
import {
  chargeFloor,
  creditOf,
  findPriceList,
  ledgerPage,
  listPriceLists,
  putPriceList,
  readBalance,
  removePriceList,
  type LedgerEntryRow,
  type PriceListRow,
} from "../../billing/index.js";
import { getAccount } from "../../operator/index.js";
import { fetchPage } from "../../domain/cursor.js";
import { notFound } from "../../domain/errors.js";
import { iso } from "../serialize.js";
import type { Handlers } from "../types.js";

const toPriceList = (p: PriceListRow) => ({
  name: p.name,
  currency: p.currency,
  entries: p.entries,
  default: p.default,
  updatedAt: iso(p.updatedAt),
});

const toLedgerEntry = (e: LedgerEntryRow) => ({
  entryId: e.id,
  at: iso(e.createdAt),
  amount: e.amount,
  reason: e.reason,
  messageId: e.messageId,
  batchId: e.batchId,
  campaignId: e.campaignId,
  note: e.note,
  balanceAfter: e.balanceAfter,
});

export const billingHandlers: Pick<
  Handlers,
  | "OperatorPriceLists_list"
  | "OperatorPriceLists_get"
  | "OperatorPriceLists_put"
  | "OperatorPriceLists_delete"
  | "OperatorCredits_create"
  | "AccountBilling_balance"
  | "AccountBilling_ledger"
> = {
  async OperatorPriceLists_list({ db }) {
    return { status: 200, body: { data: (await listPriceLists(db)).map(toPriceList) } };
  },

  async OperatorPriceLists_get({ db, path }) {
    const list = await findPriceList(db, path.name);
    if (!list) throw notFound("Price list");
    return { status: 200, body: toPriceList(list) };
  },

  async OperatorPriceLists_put({ db, path, body }) {
    const { row, created } = await putPriceList(db, path.name, body);
    return { status: created ? 201 : 200, body: toPriceList(row) };
  },

  async OperatorPriceLists_delete({ db, path }) {
    await removePriceList(db, path.name);
    return { status: 204 };
  },

  async OperatorCredits_create({ db, path, body }) {
    return { status: 201, body: toLedgerEntry(await creditOf(db, path.accountId, body.amount, body.note)) };
  },

  async AccountBilling_balance({ db, account }) {
    const row = await getAccount(db, account.id);
    if (!row) throw notFound("Account");
    const limits = row.limits;
    const balance = await readBalance(db, account.id);
    const floor = chargeFloor(limits);
    return {
      status: 200,
      body: {
        balance,
        currency: limits.currency,
        billing: limits.billing,
        creditLimit: limits.creditLimit,
        available: floor === null ? null : balance - floor,
        lowBalanceThreshold: limits.lowBalanceThreshold,
        priceList: limits.priceList,
        chargeOn: limits.chargeOn,
      },
    };
  },

  async AccountBilling_ledger({ db, account, query }) {
    const { items, nextCursor } = await fetchPage(query, (w) => ledgerPage(db, account.id, w));
    return { status: 200, body: { data: items.map(toLedgerEntry), nextCursor } };
  },
};
