import type { Knex } from "knex";

// The parts of a concatenated submit_sm (UDH 8- or 16-bit reference, or the SAR TLVs), kept durably until all
// are in, then stored as ONE message (docs/SMPP.md, "For client applications"). A part's submit_sm_resp is
// sent once its row is committed, and every part of one message answers with the same id (message_id, the
// message's id once complete; smpp_id, its short id for hex or decimal credentials). Who reaps the rows: the
// submit of the last part deletes them with the message stored; parts whose message never completes are
// deleted by the SMPP server processes after 10 minutes, each message's with an undelivered receipt in
// smpp_outbox when its submit asked for one (an outbox row that names no message: its own receipt_id, sender
// and recipient).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE smpp_submit_parts (
      account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      part_key text NOT NULL,
      seq integer NOT NULL,
      total integer NOT NULL CHECK (total BETWEEN 2 AND 255),
      body text NOT NULL,
      message_id uuid NOT NULL,
      smpp_id bigint,
      -- For the undelivered receipt of a message that never completes: whether its submit asked for one, in
      -- which id format, and its addresses.
      receipt text CHECK (receipt IN ('uuid', 'hex', 'decimal')),
      sender text NOT NULL,
      recipient text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (account_id, part_key, seq)
    );
    CREATE INDEX smpp_submit_parts_age_idx ON smpp_submit_parts (created_at);
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
