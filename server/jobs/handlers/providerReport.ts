// A provider's later status reports (delivery receipts) for messages it accepted, a claimed batch at once,
// applied through the status machine: a duplicate or late report (the message is already final) changes
// nothing.
import type { Db } from "../../db/knex.js";
import { findMessages } from "../../db/messages.js";
import { canTransition } from "../../domain/messageStatus.js";
import { changeMessageStatuses, type MessageFacts, type StatusChange } from "../../services/statusChanges.js";
import { RetryLater, type BatchJobHandler } from "../types.js";

export function providerReportHandler(db: Db): BatchJobHandler<"provider_report"> {
  return {
    async batch(jobs, { log }) {
      const reports = jobs.map((j) => j.payload);
      const known = new Map(
        (await findMessages(db, { providerMessageIds: reports.map((r) => r.providerMessageId) })).map((m) => [m.providerMessageId, m]),
      );
      const changes: { message: MessageFacts; change: StatusChange }[] = [];
      const outcomes = jobs.map((job, i): Error | undefined => {
        const report = reports[i]!;
        const message = known.get(report.providerMessageId);
        if (!message) {
          // The report can overtake the recording of the submit's answer (the id is stored after the
          // provider answers): wait for it, a few times, before giving up on an id we never issued.
          if (job.attempt < job.maxAttempts)
            return new RetryLater(new Date(Date.now() + 200 * job.attempt), `unknown provider message id ${report.providerMessageId}`);
          log.warn({ providerMessageId: report.providerMessageId }, "report for an unknown provider message id dropped");
          return undefined;
        }
        if (!canTransition(message.status, report.status)) {
          log.debug({ messageId: message.id, status: message.status, report: report.status }, "late or duplicate report ignored");
          return undefined;
        }
        changes.push({
          message,
          change: { status: report.status, at: report.at ? new Date(report.at) : new Date(), error: report.error ?? null },
        });
        return undefined;
      });
      await changeMessageStatuses(db, changes);
      return outcomes;
    },
  };
}
