import type { Knex } from "knex";

// Unknown send outcomes are bounded by what was on the wire and resolved from later receipts
// (docs/RELIABILITY.md, "A crash costs at most what was on the wire").
// - messages.submitted_at / submitted_via: set in the statement that claims a window of messages just before its
//   PDUs are written (the on-the-wire mark), with the link they go out on.
// - messages.outcome_unknown_at: when the outcome was declared unknown (the worker died or the link dropped
//   while the message was on the wire); kept after a receipt resolves it, so unknowns can be counted.
// - unmatched_receipts: receipts whose provider id matched no message, kept for a bounded time to be matched
//   to an unknown-outcome message by destination, submit minute and text prefix.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE messages ADD COLUMN submitted_at timestamptz, ADD COLUMN submitted_via text,
      ADD COLUMN outcome_unknown_at timestamptz;
    CREATE INDEX messages_outcome_unknown_idx ON messages (submitted_via, recipient)
      WHERE status = 'sending' AND outcome_unknown_at IS NOT NULL;
    CREATE TABLE unmatched_receipts (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      link text NOT NULL,
      provider_message_id text NOT NULL,
      status text NOT NULL,
      error_code text,
      error_message text,
      destination text NOT NULL,
      submitted_minute timestamptz,
      text_prefix text,
      at timestamptz NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now()
    );
    -- A receipt is kept once however often it arrives (an SMSC resends, a receipt job re-runs after a crash):
    -- two copies would make their message look ambiguous.
    CREATE UNIQUE INDEX unmatched_receipts_once_idx ON unmatched_receipts (link, destination, provider_message_id, status);
    CREATE INDEX unmatched_receipts_received_idx ON unmatched_receipts (received_at);
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
