// A provider's later status report (delivery receipt) for a message it accepted: applied through the status
// machine, so a duplicate or late report (the message is already final) changes nothing.
import type { Db } from "../../db/knex.js";
import { findMessage } from "../../db/messages.js";
import { changeMessageStatus } from "../../domain/statusChanges.js";
import type { ProviderReport } from "../../providers/types.js";
import { RetryLater, type JobHandler } from "../types.js";

export const PROVIDER_REPORT_JOB = "provider_report";

export interface ProviderReportPayload {
  providerMessageId: string;
  status: ProviderReport["status"];
  error?: { code: string; message: string };
  /** When the provider saw the status; defaults to when the report is applied. */
  at?: string;
}

export function providerReportHandler(db: Db): JobHandler {
  return async (job, { log }) => {
    const report = job.payload as unknown as ProviderReportPayload;
    const at = report.at ? new Date(report.at) : new Date();
    const changed = await changeMessageStatus(db, { providerMessageId: report.providerMessageId }, { status: report.status, at, error: report.error ?? null });
    if (changed) return;
    const message = await findMessage(db, { providerMessageId: report.providerMessageId });
    if (!message) {
      // The report can overtake the recording of the submit's answer (the id is stored after the provider
      // answers): wait for it, a few times, before giving up on an id we never issued.
      if (job.attempt < job.maxAttempts) throw new RetryLater(new Date(Date.now() + 200 * job.attempt), `unknown provider message id ${report.providerMessageId}`);
      log.warn({ providerMessageId: report.providerMessageId }, "report for an unknown provider message id dropped");
      return;
    }
    log.debug({ messageId: message.id, status: message.status, report: report.status }, "late or duplicate report ignored");
  };
}
