import type { Knex } from "knex";

export interface NewJob {
  id: string;
  kind: string;
  payload: Record<string, unknown>;
  runAt: Date;
  maxAttempts?: number;
}

/** Inserts jobs and wakes listening workers (NOTIFY is delivered at commit, so never before the row exists). */
export async function insertJobs(tx: Knex.Transaction, jobs: NewJob[]): Promise<void> {
  if (jobs.length === 0) return;
  await tx("jobs").insert(
    jobs.map((j) => ({ id: j.id, kind: j.kind, payload: j.payload, run_at: j.runAt, max_attempts: j.maxAttempts ?? 1 })),
  );
  await tx.raw("SELECT pg_notify('jobs_inserted', '')");
}
