import type { Knex } from "knex";
import { CLAIM_JOBS_V5 } from "../jobs/functions/claimJobsV4.js";

// claim_jobs_v5: claim_jobs_v4 with its window's room refilled with jobs that have no account yet (SMSC
// receipts), so a claim comes back short only when nothing more is due (db/jobs/functions/claimJobsV4.ts).
// claim_jobs_v4 stays for workers of the previous release during a rolling upgrade.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(CLAIM_JOBS_V5);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
