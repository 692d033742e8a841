import type { Knex } from "knex";
import { JOBS_CHANNEL } from "./jobs/index.js";

export interface SimulatedSubmission {
  messageId: string;
  providerMessageId: string;
  recipient: string;
  outcome: string;
  /** The report the simulated carrier will send later, if any. */
  report?: Record<string, unknown>;
}

/**
 * Records submissions and schedules the simulated carrier's later reports as jobs: one statement, so both or
 * neither happen.
 */
export async function recordSimulatorSubmissions(
  db: Knex,
  submissions: SimulatedSubmission[],
  reports: { kind: string; runAt: Date; maxAttempts: number },
): Promise<void> {
  if (submissions.length === 0) return;
  const withReport = submissions.filter((s) => s.report);
  await db.raw(
    `WITH s AS (
       INSERT INTO simulator_submissions (message_id, provider_message_id, recipient, outcome)
       SELECT * FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[])
     ), j AS (
       INSERT INTO jobs (kind, payload, run_at, max_attempts) SELECT ?, p, ?, ? FROM unnest(?::jsonb[]) AS p
     )
     SELECT CASE WHEN ? THEN pg_notify(?, ?) END`,
    [
      submissions.map((s) => s.messageId),
      submissions.map((s) => s.providerMessageId),
      submissions.map((s) => s.recipient),
      submissions.map((s) => s.outcome),
      reports.kind, reports.runAt, reports.maxAttempts,
      withReport.map((s) => JSON.stringify(s.report)),
      withReport.length > 0, JOBS_CHANNEL, String(reports.runAt.getTime()),
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
