// Prices, balances and spend, as one module (docs/BILLING.md): priceRules.ts (pure: a message's price by a
// price list), priceListsTable.ts and ledgerTable.ts (its SQL: the lists; balances and the immutable ledger),
// charges.ts (prices fixed and charged at acceptance), billingAdmin.ts (the operator's price lists, billing
// fields and credits). The refund of a message that never reached a carrier is a trigger (migration 049).
// This file is the module's only entry (lint: modules-through-their-index).
export * from "./priceRules.js";
export * from "./priceListsTable.js";
export * from "./ledgerTable.js";
export * from "./charges.js";
export * from "./billingAdmin.js";
