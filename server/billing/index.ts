// Prices, balances and spend, as one module (docs/BILLING.md): priceRules.ts (pure: a message's price by a
// price list), priceListsTable.ts and ledgerTable.ts (its SQL: the lists; balances and the immutable ledger),
// charges.ts (prices fixed and charged at acceptance), billingAdmin.ts (the operator's price lists, billing
// fields and credits). The refund of a message that never reached a carrier is a trigger (migration 049).
// This file is the module's only entry (lint: modules-through-their-index).
export { type PriceBook, priceOf } from "./priceRules.js";
export { findPriceList, listPriceLists, type PriceListRow } from "./priceListsTable.js";
export {
  chargeFromReservation,
  creditAccount,
  ensureBalance,
  type LedgerEntryRow,
  ledgerPage,
  lockBalance,
  readBalance,
  releaseReservation,
  reserveForCampaign,
  storeChargedMessage,
} from "./ledgerTable.js";
export { balanceMoved, cachedPriceBook, chargeAccepted, chargeFloor, insufficientFunds, priceBookFor } from "./charges.js";
export { changeAccount, creditOf, putPriceList, removePriceList } from "./billingAdmin.js";
