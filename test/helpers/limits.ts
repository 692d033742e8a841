// What the operator allows a new account (its `limits`), as the API shows them: every check of a whole
// account compares with this one copy.
export const DEFAULT_LIMITS = {
  weight: 1,
  dailySegmentQuota: null,
  allowedCountries: null,
  blockedPrefixes: [],
  senderIds: null,
  selfServiceNumbers: false,
  maxSegmentsPerSecond: null,
  currency: "USD",
  priceList: null,
  billing: "postpaid",
  creditLimit: 0,
  lowBalanceThreshold: null,
  chargeOn: "submitted",
};
