import type { Knex } from "knex";
import { CLAIM_JOBS_V6 } from "../jobs/functions/claimJobsV4.js";

// A connector's sessions shared by the workers (docs/ROUTING.md, "Sessions"): each worker opens its share and
// reports how many it holds (connector_states.sessions_held; null from a worker of the previous release, which
// opens them all). A send job routed to a connector whose sessions other workers hold is handed to them: pinned
// (jobs.connector_id) and claimed only by a holder (claim_jobs_v6; v5 stays for workers of the previous release,
// which ignore the pin and send it themselves). The partial index serves the chore that unpins the jobs of a
// connector nobody holds bound.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE jobs ADD COLUMN IF NOT EXISTS connector_id uuid;
    CREATE INDEX IF NOT EXISTS jobs_connector_pin_idx ON jobs (connector_id) WHERE connector_id IS NOT NULL;
    ALTER TABLE connector_states ADD COLUMN IF NOT EXISTS sessions_held integer;
  `);
  await knex.raw(CLAIM_JOBS_V6);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
