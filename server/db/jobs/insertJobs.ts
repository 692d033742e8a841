// The one way rows get into the jobs table: insertJobs for jobs made in TypeScript, insertJobsSql for
// statements that make jobs from rows of their own (the outbox, fan-out, the simulator). Both take the
// attempt budget from the kind map, so it is written once per kind.
import type { Knex } from "knex";
import { MAX_ATTEMPTS, type JobKind, type JobKinds } from "./kinds.js";
import { notifyWorkers } from "./wakeUp.js";

/** `accountId`: the account whose work it is (null only for an SMSC's receipt, whose account is not known yet). */
export type NewJob = { [K in JobKind]: { id?: string; kind: K; payload: JobKinds[K]; runAt?: Date; accountId: string | null } }[JobKind];

/** A job outside the kind map, with its own attempt budget: for the job table's tests and the benchmarks. */
export interface NewUntypedJob {
  id?: string;
  kind: string;
  payload: object;
  runAt?: Date;
  maxAttempts: number;
  accountId?: string | null;
}

/** Inserts jobs and wakes listening workers when one is due within the horizon. */
export async function insertJobs(tx: Knex.Transaction, jobs: NewJob[]): Promise<void> {
  await insertUntypedJobs(
    tx,
    jobs.map((j) => ({ ...j, maxAttempts: MAX_ATTEMPTS[j.kind] })),
  );
}

export async function insertUntypedJobs(tx: Knex.Transaction, jobs: NewUntypedJob[]): Promise<void> {
  if (jobs.length === 0) return;
  const now = new Date();
  await tx("jobs").insert(
    jobs.map((j) => ({
      id: j.id,
      kind: j.kind,
      payload: j.payload,
      run_at: j.runAt ?? now,
      max_attempts: j.maxAttempts,
      account_id: j.accountId ?? null,
    })),
  );
  await notifyWorkers(tx, new Date(Math.min(...jobs.map((j) => (j.runAt ?? now).getTime()))));
}

/**
 * `INSERT INTO jobs … SELECT` for a statement that makes jobs of `kind` from rows of its own: `accountId`,
 * `payload` (and `id`, `runAt` when given) are SQL expressions over the rows of `from`. The kind is one of the map's fixed
 * names, so writing it into the text is safe; the statement's text is the same for every call.
 *
 * `claimed`: the rows for which the SQL condition `when` holds are inserted already claimed (running, first
 * attempt, locked by the worker `workerId` for `leaseSeconds`, both SQL expressions) — a job handed to the
 * worker that made it, which runs it without a claim (JobHandoff in types.ts). The others are available.
 */
export function insertJobsSql<K extends JobKind>(
  kind: K,
  sql: {
    accountId: string;
    payload: string;
    id?: string;
    runAt?: string;
    priority?: string;
    from?: string;
    claimed?: { when: string; workerId: string; leaseSeconds: string };
  },
): string {
  const columns: [string, string][] = [
    ["account_id", sql.accountId],
    ["kind", `'${kind}'`],
    ["payload", sql.payload],
    ["max_attempts", String(MAX_ATTEMPTS[kind])],
  ];
  if (sql.id) columns.unshift(["id", sql.id]);
  if (sql.runAt) columns.push(["run_at", sql.runAt]);
  if (sql.priority) columns.push(["priority", sql.priority]);
  if (sql.claimed) {
    const { when, workerId, leaseSeconds } = sql.claimed;
    columns.push(
      ["state", `CASE WHEN ${when} THEN 'running' ELSE 'available' END`],
      ["attempt", `CASE WHEN ${when} THEN 1 ELSE 0 END`],
      ["locked_by", `CASE WHEN ${when} THEN ${workerId} END`],
      ["locked_until", `CASE WHEN ${when} THEN now() + make_interval(secs => ${leaseSeconds}) END`],
    );
  }
  return `INSERT INTO jobs (${columns.map((c) => c[0]).join(", ")}) SELECT ${columns.map((c) => c[1]).join(", ")}${sql.from ? ` FROM ${sql.from}` : ""}`;
}
