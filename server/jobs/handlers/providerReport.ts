// A provider's later status reports (delivery receipts) for messages it accepted, a claimed batch at once,
// applied through the status machine: a duplicate or late report (the message is already final) changes
// nothing.
import type { Db } from "../../db/knex.js";
import { findMessages } from "../../db/messages/index.js";
import { canTransition } from "../../domain/messageStatus.js";
import { changeMessageStatuses, type MessageFacts, type StatusChange } from "../../services/statusChanges.js";
import { keepUnmatchedReceipt, LOOKUPS_BEFORE_UNMATCHED } from "../../services/unknownOutcomes.js";
import { RetryLater, type BatchJobHandler } from "../types.js";

export function providerReportHandler(db: Db): BatchJobHandler<"provider_report"> {
  return {
    async batch(jobs, { log, handoff }) {
      const reports = jobs.map((j) => j.payload);
      // The simulator names the account of each report; a report without one (of the previous release, its
      // message gone) is looked up by provider id alone.
      const accountIds = jobs.every((j) => j.accountId !== null) ? jobs.map((j) => j.accountId!) : undefined;
      const providerMessageIds = reports.map((r) => r.providerMessageId);
      const known = new Map((await findMessages(db, { providerMessageIds, accountIds })).map((m) => [m.providerMessageId, m]));
      const changes: { message: MessageFacts; change: StatusChange }[] = [];
      const unmatched: typeof reports = [];
      const outcomes = jobs.map((job, i): Error | undefined => {
        const report = reports[i]!;
        const message = known.get(report.providerMessageId);
        if (!message) {
          // The report can overtake the recording of the submit's answer (the id is stored after the
          // provider answers): wait for it, a few times; then keep it to resolve an unknown outcome.
          if (job.attempt < LOOKUPS_BEFORE_UNMATCHED)
            return new RetryLater(new Date(Date.now() + 200 * job.attempt), `unknown provider message id ${report.providerMessageId}`);
          if (report.destination) unmatched.push(report);
          else log.warn({ providerMessageId: report.providerMessageId }, "report for an unknown provider message id dropped");
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
      // Their receipts go to this worker's receipts lane without a claim, as far as it has room.
      await changeMessageStatuses(db, changes, { handoff: handoff("receipts") });
      for (const r of unmatched) {
        log.info(
          { providerMessageId: r.providerMessageId },
          "report for an unknown provider message id kept to resolve an unknown outcome",
        );
        await keepUnmatchedReceipt(db, {
          link: "simulator",
          providerMessageId: r.providerMessageId,
          status: r.status,
          error: r.error ?? null,
          at: r.at ? new Date(r.at) : new Date(),
          destination: r.destination!,
          submittedMinute: r.submittedAt ? new Date(Math.floor(Date.parse(r.submittedAt) / 60_000) * 60_000) : null,
          textPrefix: r.text || null,
          job: { kind: "provider_report", payload: r },
        });
      }
      return outcomes;
    },
  };
}
