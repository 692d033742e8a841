import type { Knex } from "knex";

export interface NewJob {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
  runAt: Date;
  maxAttempts?: number;
}

export const JOBS_CHANNEL = "jobs_inserted";

/**
 * Wakes listening workers at commit (NOTIFY is transactional, so never before the rows exist). The payload
 * is the earliest run_at in ms since the epoch: a worker wakes at once for a due job and only re-arms its
 * timer for a future one, instead of querying. An empty payload means "look now".
 */
export async function notifyWorkers(db: Knex, earliestRunAt?: Date): Promise<void> {
  await db.raw("SELECT pg_notify(?, ?)", [JOBS_CHANNEL, earliestRunAt ? String(earliestRunAt.getTime()) : ""]);
}

/** Inserts jobs and wakes listening workers. */
export async function insertJobs(tx: Knex.Transaction, jobs: NewJob[]): Promise<void> {
  if (jobs.length === 0) return;
  await tx("jobs").insert(
    jobs.map((j) => ({ id: j.id, kind: j.kind, payload: j.payload, run_at: j.runAt, max_attempts: j.maxAttempts ?? 1 })),
  );
  await notifyWorkers(tx, new Date(Math.min(...jobs.map((j) => j.runAt.getTime()))));
}
