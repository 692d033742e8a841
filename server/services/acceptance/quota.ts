// The daily quota, the intake rule that judges a request as a whole: the segments a door accepted are counted
// against the account's quota, or the whole request is refused (429 quota_exceeded, nothing stored). The
// operator module keeps the quota's rows; a door counts through here.
export { chargeQuota, countsQuota } from "../../operator/index.js";
