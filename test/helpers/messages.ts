// Many due messages at once, stored the way campaign fan-out stores them (messages, send jobs and history in
// one statement per 1,000), for the tests that run them through real worker processes.
import { randomUUID } from "node:crypto";
import type { Db } from "../../server/db/knex.js";
import { insertMessagesWithJobs } from "../../server/db/messages/index.js";

export interface DueMessages {
  dueAt: (i: number) => Date;
  /** Recipient of message i; by default numbers the simulator delivers (never ending in 0001-0003). */
  to?: (i: number) => string;
  body?: string;
}

/** Stores `n` messages of the account with their send jobs; returns their ids in order. */
export async function insertDueMessages(db: Db, accountId: string, n: number, o: DueMessages): Promise<string[]> {
  const to = o.to ?? ((i: number) => `+1415557${String(1000 + (i % 9000))}`);
  const ids: string[] = [];
  for (let i = 0; i < n; i += 1000) {
    const batch = Array.from({ length: Math.min(1000, n - i) }, (_v, j) => ({
      id: randomUUID(),
      jobId: randomUUID(),
      to: to(i + j),
      from: "ACME",
      body: o.body ?? "test message",
      scheduledAt: o.dueAt(i + j),
      segments: 1,
      encoding: "GSM-7" as const,
    }));
    await db.transaction((tx) => insertMessagesWithJobs(tx, accountId, batch));
    ids.push(...batch.map((m) => m.id));
  }
  return ids;
}
