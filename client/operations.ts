// The summary of each operation that changes something (GET is never audited), by its operationId (generated
// from the contract by `npm run gen`): how to name an audit event's `action` in words. Separate from index.ts
// and http.ts, so a copy of the client needs it only when it shows audit events.
export { OPERATION_SUMMARIES } from "../generated/operationSummaries.js";
