// The messages table: its rows, its reads, new messages, and every change of status (transitions.ts and
// statusChange.ts are the only writers of messages.status).
export * from "./insert.js";
export * from "./insertScheduled.js";
export * from "./reads.js";
export * from "./rows.js";
export * from "./statusChange.js";
export * from "./transitions.js";
export * from "./search.js";
export * from "./statusIndexes.js";
