// The one way rows get into the jobs table: insertJobs for jobs made in TypeScript, insertJobsSql for
// statements that make jobs from rows of their own (the outbox, fan-out, the simulator). Both take the
// attempt budget from the kind map, so it is written once per kind.
import type { Knex } from "knex";
import { MAX_ATTEMPTS, type JobKind, type JobKinds } from "./kinds.js";
import { notifyWhenSql, wakeUpPayload } from "./wakeUp.js";
import { prepared, runPrepared } from "../prepared.js";
import { sql, type Sql } from "../sql.js";

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
  // One prepared statement whatever the number of jobs (a multi-row VALUES list is a new statement text, and
  // so a new plan, for every count), with its NOTIFY: receipts stored a batch at a time come through here.
  await runPrepared(tx, INSERT_JOBS, {
    ids: jobs.map((j) => j.id ?? null),
    kinds: jobs.map((j) => j.kind),
    payloads: jobs.map((j) => JSON.stringify(j.payload)),
    runAts: jobs.map((j) => j.runAt ?? now),
    maxAttempts: jobs.map((j) => j.maxAttempts),
    accountIds: jobs.map((j) => j.accountId ?? null),
    wakeUp: wakeUpPayload(new Date(Math.min(...jobs.map((j) => (j.runAt ?? now).getTime())))) ?? null,
  });
}

interface JobColumns {
  ids: (string | null)[];
  kinds: string[];
  payloads: string[];
  runAts: Date[];
  maxAttempts: number[];
  accountIds: (string | null)[];
  /** The NOTIFY payload, or null for none (no job due within the horizon). */
  wakeUp: string | null;
}

const INSERT_JOBS = prepared(
  "insert_jobs",
  (v: JobColumns) =>
    sql`WITH inserted AS (
          INSERT INTO jobs (id, kind, payload, run_at, max_attempts, account_id)
          SELECT coalesce(j.id, gen_uuid_v7()), j.kind, j.payload, j.run_at, j.max_attempts, j.account_id
            FROM unnest(${v.ids}::uuid[], ${v.kinds}::text[], ${v.payloads}::jsonb[], ${v.runAts}::timestamptz[],
                        ${v.maxAttempts}::int[], ${v.accountIds}::uuid[]) AS j(id, kind, payload, run_at, max_attempts, account_id)
          RETURNING 1)
        SELECT count(*) AS n, ${notifyWhenSql(sql`${v.wakeUp}::text IS NOT NULL`, sql`${v.wakeUp}::text`)} FROM inserted`,
);

/**
 * `INSERT INTO jobs … SELECT` for a statement that makes jobs of `kind` from rows of its own: `accountId`,
 * `payload` (and `id`, `runAt` when given) are SQL expressions over the rows of `from` (text made in code, or
 * fragments of the `sql` tag with their bindings). The kind is one of the map's fixed
 * names, so writing it into the text is safe; the statement's text is the same for every call.
 *
 * `claimed`: the rows for which the SQL condition `when` holds are inserted already claimed (running, first
 * attempt, locked by the worker `workerId` for `leaseSeconds`, both SQL expressions) — a job handed to the
 * worker that made it, which runs it without a claim (JobHandoff in types.ts). The others are available.
 */
export function insertJobsSql<K extends JobKind>(
  kind: K,
  parts: {
    accountId: Expr;
    payload: Expr;
    id?: Expr;
    runAt?: Expr;
    priority?: Expr;
    from?: Expr;
    claimed?: { when: Expr; workerId: Expr; leaseSeconds: Expr };
  },
): Sql {
  const columns: [string, Sql][] = [
    ["account_id", expr(parts.accountId)],
    ["kind", sql.raw(`'${kind}'`)],
    ["payload", expr(parts.payload)],
    ["max_attempts", sql.raw(String(MAX_ATTEMPTS[kind]))],
  ];
  if (parts.id) columns.unshift(["id", expr(parts.id)]);
  if (parts.runAt) columns.push(["run_at", expr(parts.runAt)]);
  if (parts.priority) columns.push(["priority", expr(parts.priority)]);
  if (parts.claimed) {
    const when = expr(parts.claimed.when);
    columns.push(
      ["state", sql`CASE WHEN ${when} THEN 'running' ELSE 'available' END`],
      ["attempt", sql`CASE WHEN ${when} THEN 1 ELSE 0 END`],
      ["locked_by", sql`CASE WHEN ${when} THEN ${expr(parts.claimed.workerId)} END`],
      ["locked_until", sql`CASE WHEN ${when} THEN now() + make_interval(secs => ${expr(parts.claimed.leaseSeconds)}) END`],
    );
  }
  const names = sql.raw(columns.map((c) => c[0]).join(", "));
  const values = sql.join(columns.map((c) => c[1]));
  return sql`INSERT INTO jobs (${names}) SELECT ${values}${parts.from ? sql` FROM ${expr(parts.from)}` : sql``}`;
}

/** An SQL expression: a fragment of the `sql` tag (never a plain string, which would be spliced in unquoted). */
type Expr = Sql;
const expr = (e: Expr): Sql => e;
