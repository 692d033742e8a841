import type { Knex } from "knex";
import { ACCOUNT_CLAIM_INDEX, CLAIM_JOBS_V4 } from "../jobs/functions/claimJobsV4.js";

// Fair shares between accounts (db/jobs/functions/claimJobsV4.ts says how): the default lane's claim becomes
// claim_jobs_v4, which walks the new jobs_account_claim_idx account by account. A timed job (a send paid for
// its throughput slot) gets priority -1 of its own, so the claim can take timed jobs of every account first
// without letting an account's own `high` sends (priority 0) do the same. claim_jobs_v3 stays: the receipts
// lane keeps it, and workers of the previous release call it during a rolling upgrade (they do not see
// priority -1 jobs, which the new workers claim).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE jobs DROP CONSTRAINT jobs_priority_check;
    ALTER TABLE jobs ADD CONSTRAINT jobs_priority_check CHECK (priority BETWEEN -1 AND 2);
    ${ACCOUNT_CLAIM_INDEX};
    ${CLAIM_JOBS_V4}
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
