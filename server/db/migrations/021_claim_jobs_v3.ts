import type { Knex } from "knex";
import { CLAIM_JOBS_V3 } from "../jobs/functions/claimJobsV3.js";

// The claim without planner settings (db/jobs/functions/claimJobsV3.ts says why): claim_jobs_v3, and
// jobs_claim_idx dropped so that the lane index is the one index a claim can walk in order. claim_jobs_v2 and
// claim_jobs stay for workers of the previous release during a rolling upgrade, their SET clauses reset: on a
// server with JIT those settings made every claimed provider report compile its account lookup.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ${CLAIM_JOBS_V3}

    ALTER FUNCTION claim_jobs_v2(integer, text, double precision, text) RESET ALL;
    ALTER FUNCTION claim_jobs_v2(integer, text, double precision) RESET ALL;
    ALTER FUNCTION claim_jobs(integer, text, double precision, text) RESET ALL;
    ALTER FUNCTION claim_jobs(integer, text, double precision) RESET ALL;

    DROP INDEX jobs_claim_idx;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
