import type { Knex } from "knex";
import { JOBS_CHANNEL } from "./jobs/index.js";

/**
 * Records a submission and, when the simulated carrier will report on it, schedules that report job: one
 * statement, so both or neither happen.
 */
export async function recordSimulatorSubmission(
  db: Knex,
  s: { messageId: string; providerMessageId: string; recipient: string; outcome: string },
  report?: { kind: string; payload: Record<string, unknown>; runAt: Date; maxAttempts: number },
): Promise<void> {
  if (!report) {
    await db("simulator_submissions").insert({ message_id: s.messageId, provider_message_id: s.providerMessageId, recipient: s.recipient, outcome: s.outcome });
    return;
  }
  await db.raw(
    `WITH s AS (
       INSERT INTO simulator_submissions (message_id, provider_message_id, recipient, outcome) VALUES (?, ?, ?, ?)
     ), j AS (
       INSERT INTO jobs (kind, payload, run_at, max_attempts) VALUES (?, ?, ?, ?)
     )
     SELECT pg_notify(?, ?)`,
    [s.messageId, s.providerMessageId, s.recipient, s.outcome, report.kind, JSON.stringify(report.payload), report.runAt, report.maxAttempts, JOBS_CHANNEL, String(report.runAt.getTime())],
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
