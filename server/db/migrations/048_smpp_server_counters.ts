import type { Knex } from "knex";

// What each SMPP server process counted of its client applications' submit_sm, per account: accepted, refused
// (by the acceptance path or SMPP itself) and throttled (over the bind's submitsPerSecond). A process keeps
// its counts in memory and writes them here, whole, every second with its binds' refresh, so /metrics (served
// by the API processes, which hold no SMPP session) sums them over every process. Who reaps the rows: the
// processes' refresh deletes those not written for a day (a process gone; its counts leave the sums, which
// Prometheus reads as a counter reset).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE smpp_server_counters (
      server_id text NOT NULL,
      account_id uuid NOT NULL,
      accepted bigint NOT NULL DEFAULT 0,
      refused bigint NOT NULL DEFAULT 0,
      throttled bigint NOT NULL DEFAULT 0,
      written_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (server_id, account_id)
    );
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
