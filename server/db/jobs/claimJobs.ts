import type { Knex } from "knex";
import { CLAIM_ALL_CALL, CLAIM_LANE_CALL } from "./functions/claimJobsV3.js";
import { CLAIM_FAIR_CALL } from "./functions/claimJobsV4.js";
import { queryPrepared } from "../prepared.js";
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
 * worker's cursor: db/jobs/functions/claimJobsV4.ts), and takes a send job handed to a connector only when
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
      ? await queryPrepared<ClaimRow>(db, claimAll, { limit, workerId, leaseSeconds })
      : lane === "default"
        ? await queryPrepared<ClaimRow>(db, claimFair, { limit, workerId, leaseSeconds, after, connectors })
        : await queryPrepared<ClaimRow>(db, claimLane, { limit, workerId, leaseSeconds, lane });
  return {
    jobs: row!.jobs.map((j) => ({ ...j, runAt: new Date(j.runAt), createdAt: new Date(j.createdAt) })),
    nextDueInMs: row!.nextDueInMs,
    lastAccount: row!.lastAccount ?? null,
  };
}

type RawJob = Omit<ClaimedJob, "runAt" | "createdAt"> & { runAt: string; createdAt: string };
type ClaimRow = { jobs: RawJob[]; nextDueInMs: number | null; lastAccount?: string | null };

const claimAll = { name: "claim_jobs_v3", text: CLAIM_ALL_CALL };
const claimLane = { name: "claim_jobs_v3_lane", text: CLAIM_LANE_CALL };
const claimFair = { name: "claim_jobs_v6", text: CLAIM_FAIR_CALL };
