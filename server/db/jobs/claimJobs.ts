import type { Knex } from "knex";
import { prepared, runPrepared } from "../prepared.js";
import { sql } from "../sql.js";
import type { JobLane } from "./lanes.js";
import type { ClaimedJob } from "./types.js";

export interface Claim {
  jobs: ClaimedJob[];
  /** Milliseconds (on the database's clock) until the next waiting job is due; null when none waits. */
  nextDueInMs: number | null;
  /** The default lane's fair claim: the last account it served, where the worker's next claim starts after. */
  lastAccount?: string | null;
}

/**
 * Claims up to `limit` due jobs for `workerId` with a lease of `leaseMs`, and says when the next job not yet
 * due will be, in the same round trip (the runner arms its timer with it). SKIP LOCKED lets any number of
 * workers claim concurrently without waiting on each other or claiming the same job. The default lane's claim
 * is claim_jobs_v6, which shares the window between accounts, starting after the account `after` (the
 * worker's cursor: db/jobs/functions/fairClaim.ts), and takes a send job handed to a connector only when
 * the worker holds that connector (`connectors`, docs/ROUTING.md "Sessions"); the receipts lane and a claim of every lane are
 * claim_jobs_v3 (functions/claimJobsV3.ts).
 */
export async function claimJobs(
  db: Knex,
  workerId: string,
  limit: number,
  leaseMs: number,
  lane?: JobLane,
  after: string | null = null,
  connectors: readonly string[] = [],
): Promise<Claim> {
  const leaseSeconds = leaseMs / 1000;
  const [row] =
    lane === undefined
      ? await runPrepared<ClaimRow, Common>(db, claimAll, { limit, workerId, leaseSeconds })
      : lane === "default"
        ? await runPrepared<ClaimRow, Common & { after: string | null; connectors: readonly string[] }>(db, claimFair, {
            limit,
            workerId,
            leaseSeconds,
            after,
            connectors,
          })
        : await runPrepared<ClaimRow, Common & { lane: JobLane }>(db, claimLane, { limit, workerId, leaseSeconds, lane });
  return {
    jobs: row!.jobs.map((j) => ({ ...j, runAt: new Date(j.runAt), createdAt: new Date(j.createdAt) })),
    nextDueInMs: row!.nextDueInMs,
    lastAccount: row!.lastAccount ?? null,
  };
}

type RawJob = Omit<ClaimedJob, "runAt" | "createdAt"> & { runAt: string; createdAt: string };
type ClaimRow = { jobs: RawJob[]; nextDueInMs: number | null; lastAccount?: string | null };

type Common = { limit: number; workerId: string; leaseSeconds: number };

/** The claim of every lane's due jobs (functions/claimJobsV3.ts). */
const claimAll = prepared(
  "claim_jobs_v3",
  (v: Common) =>
    sql`SELECT jobs, next_due_in_ms AS "nextDueInMs" FROM claim_jobs_v3(${v.limit}::int, ${v.workerId}::text, ${v.leaseSeconds}::float8)`,
);
/** The claim of one lane's due jobs (functions/claimJobsV3.ts). */
const claimLane = prepared(
  "claim_jobs_v3_lane",
  (v: Common & { lane: JobLane }) =>
    sql`SELECT jobs, next_due_in_ms AS "nextDueInMs" FROM claim_jobs_v3(${v.limit}::int, ${v.workerId}::text, ${v.leaseSeconds}::float8, ${v.lane}::text)`,
);
/** The default lane's fair claim (functions/fairClaim.ts). */
const claimFair = prepared(
  "claim_jobs_v6",
  (v: Common & { after: string | null; connectors: readonly string[] }) =>
    sql`SELECT jobs, next_due_in_ms AS "nextDueInMs", last_account AS "lastAccount"
          FROM claim_jobs_v6(${v.limit}::int, ${v.workerId}::text, ${v.leaseSeconds}::float8, ${v.after}::uuid, ${v.connectors}::uuid[])`,
);
