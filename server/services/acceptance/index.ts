// The intake of new messages: the rules every door applies, in one list (docs/ARCHITECTURE.md, "Where a new
// intake rule goes"). The single send and the SMPP server's submit_sm judge the same rules inside the one
// statement that stores the message (db/messages/insertScheduled.ts: the held sender and the opt-out list;
// billing's storeChargedMessage: funds); every other door screens its candidates here.
export { cachedPriceBook, priceBookFor, priceOf, type PriceBook } from "./price.js";
export { chargeQuota, countsQuota } from "./quota.js";
export { screen, type Screened } from "./screen.js";
export { INTAKE_STAGES, type Candidate, type IntakeContext, type IntakeStageName } from "./stages.js";
