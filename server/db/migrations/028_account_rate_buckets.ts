import type { Knex } from "knex";

// Rate limits per account, not per key (minting keys must not multiply them), and a bulk bucket of the
// account's own for the rows of imports, campaigns and batches, so a large import never blocks the next send.
// A bucket is named by what it limits: `r.<accountId>` (requests of an account's keys), `r.key.<keyId>` (an
// operator key's requests), `b.<accountId>` (bulk rows). rate_limits (per key) is no longer written; a later
// release drops it, once no process of the previous release runs.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE rate_buckets (
      bucket text PRIMARY KEY,
      tat timestamptz NOT NULL
    );
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
