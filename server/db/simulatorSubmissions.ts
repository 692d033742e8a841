import type { Knex } from "knex";

export async function recordSimulatorSubmission(
  db: Knex,
  s: { messageId: string; providerMessageId: string; recipient: string; outcome: string },
): Promise<void> {
  await db("simulator_submissions").insert({ message_id: s.messageId, provider_message_id: s.providerMessageId, recipient: s.recipient, outcome: s.outcome });
}

/** How many times each message was handed to the simulator. */
export async function countSubmissionsByMessage(db: Knex): Promise<Map<string, number>> {
  const rows: { messageId: string; n: number }[] = await db("simulator_submissions")
    .groupBy("message_id")
    .select({ messageId: "message_id" })
    .count({ n: "*" });
  return new Map(rows.map((r) => [r.messageId, Number(r.n)]));
}
