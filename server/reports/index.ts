// Reports and exports, as one module (docs/REPORTS.md, docs/EXPORTS.md): the pure rules (reportRows.ts: what a
// report groups by, its rows and percentiles), the tables (countsTable.ts: the counted events read back;
// exportsTable.ts: an export's COPY), and the services (messageReport.ts: a report for the API; exportFiles.ts:
// an export as a file). This file is the module's only entry (lint: modules-through-their-index). What the
// engine counts is written where messages change, by the engine (db/messageCounts.ts, domain/countedEvents.ts).
export { messageReport } from "./messageReport.js";
export { contactsExport, messagesExport, optOutsExport } from "./exportFiles.js";
