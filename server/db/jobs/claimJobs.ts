import type { Knex } from "knex";
import { queryPrepared } from "../prepared.js";
import type { ClaimedJob } from "./types.js";

export interface Claim {
  jobs: ClaimedJob[];
  /** Milliseconds (on the database's clock) until the next waiting job is due; null when none waits. */
  nextDueInMs: number | null;
}

/** A claim's lanes (migration 009): receipt deliveries in `receipts`, every other kind in `default`. */
export type JobLane = "default" | "receipts";

/**
 * Claims up to `limit` due jobs for `workerId` with a lease of `leaseMs`, and says when the next job not yet
 * due will be, in the same round trip (the runner arms its timer with it). SKIP LOCKED lets any number of
 * workers claim concurrently without waiting on each other or claiming the same job. The statement is the
 * function claim_jobs (migrations 005, 009 and 013), whose SET clause pins the plan to ordered index walks: for
 * one `lane`, of jobs_lane_priority_claim_idx once per priority (high, normal, low; jobs returned in that order,
 * then by run_at); for every lane, of jobs_claim_idx in run_at order.
 */
export async function claimJobs(db: Knex, workerId: string, limit: number, leaseMs: number, lane?: JobLane): Promise<Claim> {
  const [row] =
    lane === undefined
      ? await queryPrepared<ClaimRow>(db, claimAll, [limit, workerId, leaseMs / 1000])
      : await queryPrepared<ClaimRow>(db, claimLane, [limit, workerId, leaseMs / 1000, lane]);
  return {
    jobs: row!.jobs.map((j) => ({ ...j, runAt: new Date(j.runAt), createdAt: new Date(j.createdAt) })),
    nextDueInMs: row!.nextDueInMs,
  };
}

type RawJob = Omit<ClaimedJob, "runAt" | "createdAt"> & { runAt: string; createdAt: string };
type ClaimRow = { jobs: RawJob[]; nextDueInMs: number | null };

const claimAll = {
  name: "claim_jobs",
  text: 'SELECT jobs, next_due_in_ms AS "nextDueInMs" FROM claim_jobs($1, $2, $3)',
};

const claimLane = {
  name: "claim_jobs_lane",
  text: 'SELECT jobs, next_due_in_ms AS "nextDueInMs" FROM claim_jobs($1, $2, $3, $4::text)',
};
