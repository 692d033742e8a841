import type { Knex } from "knex";
import { queryPrepared } from "../prepared.js";
import type { ClaimedJob } from "./types.js";

export interface Claim {
  jobs: ClaimedJob[];
  /** Milliseconds (on the database's clock) until the next waiting job is due; null when none waits. */
  nextDueInMs: number | null;
}

/**
 * Claims up to `limit` due jobs for `workerId` with a lease of `leaseMs`, and says when the next job not yet
 * due will be, in the same round trip (the runner arms its timer with it). SKIP LOCKED lets any number of
 * workers claim concurrently without waiting on each other or claiming the same job. The statement is the
 * function claim_jobs (migration 005), whose SET clause pins the plan to an ordered walk of jobs_claim_idx.
 */
export async function claimJobs(db: Knex, workerId: string, limit: number, leaseMs: number): Promise<Claim> {
  const [row] = await queryPrepared<{ jobs: RawJob[]; nextDueInMs: number | null }>(db, claim, [limit, workerId, leaseMs / 1000]);
  return {
    jobs: row!.jobs.map((j) => ({ ...j, runAt: new Date(j.runAt), createdAt: new Date(j.createdAt) })),
    nextDueInMs: row!.nextDueInMs,
  };
}

type RawJob = Omit<ClaimedJob, "runAt" | "createdAt"> & { runAt: string; createdAt: string };

const claim = {
  name: "claim_jobs",
  text: 'SELECT jobs, next_due_in_ms AS "nextDueInMs" FROM claim_jobs($1, $2, $3)',
};
