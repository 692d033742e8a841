import type { Knex } from "knex";

// Spend in the reports (docs/BILLING.md, "Spend"): the money of messages whose charge is final, counted like
// the message counts (db/messageCounts.ts) but in tables of their own.
// - spend_deltas: appended by the status statement that makes a charge final: `sent` for an account charging
//   on submission, `delivered` for one charging on delivery (a message refunded never gets there). One row per
//   group of the statement's priced messages; none without them.
// - spend_counts: the deltas summed per quarter hour by the leader's chore (compactSpendCounts), read with the
//   deltas not moved yet.
// Tables of their own, not a column of message_counts: a previous-release leader moves message_count_deltas
// during a rolling upgrade without knowing of a spend column, and would drop it; it never touches these.
// - campaigns.estimated_cost: what its audience was priced at when it was created (the amount its reservation
//   debited), shown as the campaign's cost before and while it sends; NULL without a price list. Nullable
//   without a default: added at once.
// Money is bigint micro-units of each account's currency.
const KEYS =
  "account_id uuid NOT NULL, bucket timestamptz NOT NULL, event text NOT NULL CHECK (event IN ('sent', 'delivered')), country text NOT NULL, category text NOT NULL, campaign_id uuid NOT NULL, connector_id uuid NOT NULL";

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE spend_deltas (${KEYS}, spend bigint NOT NULL);
    CREATE TABLE spend_counts (${KEYS}, spend bigint NOT NULL,
      PRIMARY KEY (account_id, bucket, event, country, category, campaign_id, connector_id),
      FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE);
    ALTER TABLE campaigns ADD COLUMN estimated_cost bigint CHECK (estimated_cost >= 0);
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
