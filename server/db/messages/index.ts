// The messages table: its rows, its reads, new messages, and every change of status (transitions.ts and
// statusChange.ts are the only writers of messages.status).
export { insertAutoReply, insertInboundMessage, insertMessagesWithJobs, type NewInboundMessage } from "./insert.js";
export {
  insertScheduledMessage,
  insertScheduledMessageStatement,
  scheduleMessageBindings,
  scheduleMessageSql,
  type ScheduleValues,
} from "./insertScheduled.js";
export {
  findMessage,
  findMessages,
  getMessage,
  listMessages,
  type MessageListFilters,
  scheduledPastValidity,
  searchMessages,
} from "./reads.js";
export {
  MESSAGE_FACTS_SQL,
  type MessageFactsRow,
  type MessageKey,
  type MessageRow,
  type NewMessage,
  type OwnedMessageRow,
  type SendAttemptRow,
  type StoredStatus,
} from "./rows.js";
export { updateStatusesWithReceipts } from "./statusChange.js";
export {
  assignConnectors,
  cancelBatchMessages,
  cancelCampaignMessages,
  cancelScheduledMessage,
  claimMessagesForSending,
  markOutcomesUnknown,
  moveCampaignMessages,
  recordAttempts,
  returnToScheduled,
  returnUnresolvedToScheduled,
  returnUnwrittenToScheduled,
} from "./transitions.js";
export { isSearch, type MessageSearch } from "./search.js";
export { pendingSql } from "./statusIndexes.js";
