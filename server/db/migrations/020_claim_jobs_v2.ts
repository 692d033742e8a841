import type { Knex } from "knex";
import { CLAIM_JOBS_V2 } from "../jobs/functions/claimJobsV2.js";

// The claim moves to claim_jobs_v2, defined once in db/jobs/functions/claimJobsV2.ts (the body of the claim_jobs
// that migration 019 left, unchanged). claim_jobs stays for workers of the previous release during a rolling
// upgrade; a later migration drops it.
//
// The job state `completed` was never stored (a job that succeeds is deleted): it leaves the CHECKs.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ${CLAIM_JOBS_V2}

    ALTER TABLE jobs DROP CONSTRAINT jobs_state_check;
    ALTER TABLE jobs ADD CONSTRAINT jobs_state_check
      CHECK (state IN ('available', 'running', 'retryable', 'cancelled', 'discarded')) NOT VALID;
    ALTER TABLE jobs VALIDATE CONSTRAINT jobs_state_check;
    ALTER TABLE jobs DROP CONSTRAINT jobs_check1;
    ALTER TABLE jobs ADD CONSTRAINT jobs_finalized_check
      CHECK ((state IN ('cancelled', 'discarded')) = (finalized_at IS NOT NULL)) NOT VALID;
    ALTER TABLE jobs VALIDATE CONSTRAINT jobs_finalized_check;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
