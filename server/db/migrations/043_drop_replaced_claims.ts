import type { Knex } from "knex";

// The claim functions no release still calls. A replaced database function is dropped one release after its
// replacement (docs/OPERATIONS.md, "Upgrades"): the release before this one, which the rolling-upgrade test
// runs beside this one on this schema, calls claim_jobs_v3 and claim_jobs_v6 alone. claim_jobs and
// claim_jobs_v2 were replaced by v3 (migration 021), v4 by v5 (030) and v5 by v6 (035).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP FUNCTION IF EXISTS claim_jobs(integer, text, double precision);
    DROP FUNCTION IF EXISTS claim_jobs(integer, text, double precision, text);
    DROP FUNCTION IF EXISTS claim_jobs_v2(integer, text, double precision);
    DROP FUNCTION IF EXISTS claim_jobs_v2(integer, text, double precision, text);
    DROP FUNCTION IF EXISTS claim_jobs_v4(integer, text, double precision, uuid);
    DROP FUNCTION IF EXISTS claim_jobs_v5(integer, text, double precision, uuid);
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
