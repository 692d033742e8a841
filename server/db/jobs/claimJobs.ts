import type { Knex } from "knex";
import { CLAIM_ALL_CALL, CLAIM_LANE_CALL } from "./functions/claimJobsV3.js";
import { queryPrepared } from "../prepared.js";
import type { JobLane } from "./lanes.js";
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
 * function claim_jobs_v3 (db/jobs/functions/claimJobsV3.ts says how it walks the claim indexes).
 */
export async function claimJobs(db: Knex, workerId: string, limit: number, leaseMs: number, lane?: JobLane): Promise<Claim> {
  const [row] =
    lane === undefined
      ? await queryPrepared<ClaimRow>(db, claimAll, { limit, workerId, leaseSeconds: leaseMs / 1000 })
      : await queryPrepared<ClaimRow>(db, claimLane, { limit, workerId, leaseSeconds: leaseMs / 1000, lane });
  return {
    jobs: row!.jobs.map((j) => ({ ...j, runAt: new Date(j.runAt), createdAt: new Date(j.createdAt) })),
    nextDueInMs: row!.nextDueInMs,
  };
}

type RawJob = Omit<ClaimedJob, "runAt" | "createdAt"> & { runAt: string; createdAt: string };
type ClaimRow = { jobs: RawJob[]; nextDueInMs: number | null };

const claimAll = { name: "claim_jobs_v3", text: CLAIM_ALL_CALL };
const claimLane = { name: "claim_jobs_v3_lane", text: CLAIM_LANE_CALL };
