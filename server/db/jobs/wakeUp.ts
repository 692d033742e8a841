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

/**
 * Workers look at the queue at least this often (their safety poll re-arms the timer for the next run_at), so
 * a job due later than this needs no NOTIFY. That matters: PostgreSQL serialises the commits of notifying
 * transactions (the notification queue lock is held through the commit), which capped POST /schedule.
 */
export const NOTIFY_HORIZON_MS = 5_000;

/** Inserts jobs and wakes listening workers when one is due within the horizon. */
export async function insertJobs(tx: Knex.Transaction, jobs: NewJob[]): Promise<void> {
  if (jobs.length === 0) return;
  await tx("jobs").insert(
    jobs.map((j) => ({ id: j.id, kind: j.kind, payload: j.payload, run_at: j.runAt, max_attempts: j.maxAttempts ?? 1 })),
  );
  const earliest = Math.min(...jobs.map((j) => j.runAt.getTime()));
  if (earliest - Date.now() < NOTIFY_HORIZON_MS) await notifyWorkers(tx, new Date(earliest));
}
