import type { Knex } from "knex";
import { jobPriority, type Priority } from "../domain/sendingPolicy.js";
import { insertJobsSql, notifyWhenSql, wakeUpPayload, type JobPayload } from "./jobs/index.js";

export interface SimulatedSubmission {
  messageId: string;
  providerMessageId: string;
  recipient: string;
  outcome: string;
  /** The report the simulated carrier will send later, if any. */
  report?: JobPayload<"provider_report">;
  /** The message's priority: its report's job runs at it (see below). */
  priority: Priority;
  /** The message's account: its report's job names it. */
  accountId: string | null;
}

/**
 * Records submissions and schedules the simulated carrier's later reports as jobs: one statement, so both or
 * neither happen. A report's job runs at its message's priority: at the default normal, the reports of a large
 * low-priority campaign came before its due sends in every claim and cut them into windows of two or three
 * messages, four times slower (bench/NOTES.md).
 */
export async function recordSimulatorSubmissions(db: Knex, submissions: SimulatedSubmission[], reportsAt: Date): Promise<void> {
  if (submissions.length === 0) return;
  const withReport = submissions.filter((s) => s.report);
  await db.raw(
    `WITH s AS (
       INSERT INTO simulator_submissions (message_id, provider_message_id, recipient, outcome)
       SELECT * FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[])
     ), j AS (
       ${insertJobsSql("provider_report", {
         accountId: "r.account_id",
         payload: "r.p",
         runAt: "?::timestamptz",
         priority: "r.priority",
         from: "unnest(?::jsonb[], ?::smallint[], ?::uuid[]) AS r(p, priority, account_id)",
       })}
     )
     SELECT ${notifyWhenSql("?", "?")}`,
    [
      submissions.map((s) => s.messageId),
      submissions.map((s) => s.providerMessageId),
      submissions.map((s) => s.recipient),
      submissions.map((s) => s.outcome),
      reportsAt,
      withReport.map((s) => JSON.stringify(s.report)),
      withReport.map((s) => jobPriority(s.priority)),
      withReport.map((s) => s.accountId),
      withReport.length > 0 && wakeUpPayload(reportsAt, "default") !== undefined,
      wakeUpPayload(reportsAt, "default") ?? "",
    ],
  );
}

/** How many times each message was handed to the simulator. */
export async function countSubmissionsByMessage(db: Knex): Promise<Map<string, number>> {
  const rows: { messageId: string; n: number }[] = await db("simulator_submissions")
    .groupBy("message_id")
    .select({ messageId: "message_id" })
    .count({ n: "*" });
  return new Map(rows.map((r) => [r.messageId, Number(r.n)]));
}
