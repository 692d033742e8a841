// The typed client for the SMS Platform API, generated from the same contract as the server
// (types in ../generated/api.ts; `npm run gen` regenerates them).
// ./http.ts is the browser-safe part (the dashboard imports it directly); ./verify.ts needs node:crypto.
export { createSmsClient, type SmsClient, type SmsClientOptions, type components, type operations, type paths } from "./http.js";
export { verifyReceipt, type ReceiptHeaders, type VerifyOptions } from "./verify.js";
