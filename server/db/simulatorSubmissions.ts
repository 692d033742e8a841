import type { Knex } from "knex";
import { jobPriority, type Priority } from "../domain/sendingPolicy.js";
import { insertJobsSql, laneOf, notifyWhenSql, wakeUpPayload, type JobPayload } from "./jobs/index.js";
import { run, sql } from "./sql.js";

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
  const wakeUp = wakeUpPayload(reportsAt, laneOf("provider_report"));
  await run(
    db,
    sql`WITH s AS (
          INSERT INTO simulator_submissions (message_id, provider_message_id, recipient, outcome)
          SELECT * FROM unnest(${submissions.map((s) => s.messageId)}::uuid[], ${submissions.map((s) => s.providerMessageId)}::text[],
                               ${submissions.map((s) => s.recipient)}::text[], ${submissions.map((s) => s.outcome)}::text[])
        ), j AS (
          ${insertJobsSql("provider_report", {
            accountId: sql`r.account_id`,
            payload: sql`r.p`,
            runAt: sql`${reportsAt}::timestamptz`,
            priority: sql`r.priority`,
            from: sql`unnest(${withReport.map((s) => JSON.stringify(s.report))}::jsonb[], ${withReport.map((s) => jobPriority(s.priority))}::smallint[],
                             ${withReport.map((s) => s.accountId)}::uuid[]) AS r(p, priority, account_id)`,
          })}
        )
        SELECT ${notifyWhenSql(sql`${withReport.length > 0 && wakeUp !== undefined}::boolean`, sql`${wakeUp ?? ""}::text`)}`,
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
