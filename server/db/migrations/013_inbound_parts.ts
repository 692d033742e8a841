import type { Knex } from "knex";

// Long inbound messages over SMPP arrive in parts (UDH or SAR). Each part is stored here before its deliver_sm
// is acknowledged, so a worker crash loses none; the part that completes a message assembles it in the same
// transaction, and parts still incomplete after INBOUND_REASSEMBLY_TIMEOUT_MS are stored as an incomplete
// message by a maintenance chore. The key is the carrier's (sender, recipient, reference, total); the primary
// key drops a repeated part. Once its message is stored a part keeps only its key (body emptied, assembled_at
// set) for one more timeout, so a part the SMSC sends again (our ack was lost) is still dropped as a repeat.
//
// An inbound body is whatever the person sent: up to 255 parts (or one message_payload of up to 64 KiB), so the
// 1600-character limit on bodies now binds outbound messages only. Swapped without a long exclusive lock (the
// new CHECK is added NOT VALID, then validated) and keeping its name, messages_body_length.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE inbound_parts (
      sender       text NOT NULL,
      recipient    text NOT NULL,
      reference    integer NOT NULL CHECK (reference BETWEEN 0 AND 65535),
      total        smallint NOT NULL CHECK (total BETWEEN 2 AND 255),
      seq          smallint NOT NULL CHECK (seq BETWEEN 1 AND total),
      body         text NOT NULL,
      encoding     text NOT NULL CHECK (encoding IN ('GSM-7', 'UCS-2')),
      received_at  timestamptz NOT NULL DEFAULT now(),
      assembled_at timestamptz,
      PRIMARY KEY (sender, recipient, reference, total, seq)
    );
    CREATE INDEX inbound_parts_waiting_idx ON inbound_parts (received_at) WHERE assembled_at IS NULL;
    CREATE INDEX inbound_parts_assembled_idx ON inbound_parts (assembled_at) WHERE assembled_at IS NOT NULL;

    ALTER TABLE messages ADD CONSTRAINT messages_outbound_body_length
      CHECK (direction = 'inbound' OR length(body) <= 1600) NOT VALID;
    ALTER TABLE messages VALIDATE CONSTRAINT messages_outbound_body_length;
    ALTER TABLE messages DROP CONSTRAINT messages_body_length;
    ALTER TABLE messages RENAME CONSTRAINT messages_outbound_body_length TO messages_body_length;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
