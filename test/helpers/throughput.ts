// Messages for the throughput-cap tests, stored as fan-out stores them but with the fields those tests vary
// (priority, segments, validity, due time), and what the simulator's books say about their submissions.
import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import type { Db } from "../../server/db/knex.js";
import { insertMessagesWithJobs } from "../../server/db/messages/index.js";
import type { Priority } from "../../server/domain/sendingPolicy.js";

export interface MessageSpec {
  priority?: Priority;
  segments?: number;
  dueAt?: Date;
  validUntil?: Date | null;
  campaignId?: string;
}

/** Stores messages with their send jobs (1,000 a statement); returns their ids in the order given. */
export async function insertMessages(db: Db, accountId: string, specs: MessageSpec[]): Promise<string[]> {
  const ids: string[] = [];
  const now = new Date();
  for (let i = 0; i < specs.length; i += 1000) {
    const batch = specs.slice(i, i + 1000).map((s, j) => ({
      id: randomUUID(),
      jobId: randomUUID(),
      campaignId: s.campaignId ?? null,
      to: `+1415556${String(1000 + ((i + j) % 9000))}`,
      from: "ACME",
      body: "x".repeat(s.segments && s.segments > 1 ? 153 * s.segments : 20),
      scheduledAt: s.dueAt ?? now,
      validUntil: s.validUntil ?? null,
      priority: s.priority ?? "normal",
      segments: s.segments ?? 1,
      encoding: "GSM-7" as const,
    }));
    await db.transaction((tx) => insertMessagesWithJobs(tx, accountId, batch));
    ids.push(...batch.map((m) => m.id));
  }
  return ids;
}

export interface Submission {
  messageId: string;
  /** Seconds since the epoch, the simulator's record (the database's clock). */
  at: number;
  segments: number;
}

/** The simulator's submissions of the given messages, in the order it took them. */
export async function submissionsOf(db: Db, messageIds: string[]): Promise<Submission[]> {
  const { rows } = await db.raw(
    `SELECT s.message_id AS "messageId", EXTRACT(EPOCH FROM s.submitted_at)::float8 AS at, m.segments
       FROM simulator_submissions s JOIN messages m ON m.id = s.message_id
      WHERE s.message_id = ANY(?::uuid[]) ORDER BY s.id`,
    [messageIds],
  );
  return rows;
}

/** The most segments submitted within any one second (a sliding window starting at each submission). */
export function busiestSecond(subs: Submission[]): number {
  const sorted = [...subs].sort((a, b) => a.at - b.at);
  let best = 0;
  for (let i = 0, j = 0, sum = 0; i < sorted.length; i++) {
    while (j < sorted.length && sorted[j]!.at < sorted[i]!.at + 1) sum += sorted[j++]!.segments;
    best = Math.max(best, sum);
    sum -= sorted[i]!.segments;
  }
  return best;
}

/** What the busiest second at the simulator may hold beyond cap + one message, in seconds of the cap. */
export const JITTER = 0.6;

/** The cap holds: no second busier than cap + one message (+ jitter), and the whole run no faster than the cap. */
export function expectWithinCap(subs: Submission[], cap: number) {
  const largest = Math.max(...subs.map((s) => s.segments));
  const total = subs.reduce((n, s) => n + s.segments, 0);
  expect(busiestSecond(subs)).toBeLessThanOrEqual(cap + largest + Math.ceil(cap * JITTER));
  // The first message may go at once; every later segment needs 1/cap s (less the jitter of the last one).
  expect(subs.at(-1)!.at - subs[0]!.at).toBeGreaterThanOrEqual((total - largest) / cap - JITTER);
}
