import type { Knex } from "knex";

// What SMPP client applications are told with deliver_sm (docs/SMPP.md, "For client applications"): delivery
// receipts and inbound messages, kept in PostgreSQL until a receiver of the account takes them (deliver_sm
// answered by deliver_sm_resp), however long it stays unbound, up to SMPP_SERVER_HOLD_HOURS.
// - messages.smpp_receipt: set by a submit_sm that asked for a receipt (registered_delivery), to the format its
//   credentials write ids in; NULL for every other message. Nullable without a default: added at once.
// - smpp_outbox: one row per final status of such a message (kind 'receipt'), and per inbound message of an
//   account that has SMPP credentials (kind 'inbound'), written by triggers on messages, so every path that
//   ends or receives a message writes it in the same transaction. The receipt trigger's WHEN clause keeps it
//   free for messages without smpp_receipt; the inbound one looks for credentials only for inbound messages.
//   Who moves a row: the SMPP server process holding a receiver bind of the account leases it (leased_by,
//   lease_until) while its deliver_sm is out; its deliver_sm_resp deletes it; a lease that runs out (no answer,
//   the process died) lets any process send it again (at least once). Who reaps it: the server processes
//   delete rows older than the hold.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE messages ADD COLUMN smpp_receipt text CHECK (smpp_receipt IN ('uuid', 'hex', 'decimal'));
    CREATE TABLE smpp_outbox (
      id uuid PRIMARY KEY DEFAULT gen_uuid_v7(),
      account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      message_id uuid NOT NULL,
      kind text NOT NULL CHECK (kind IN ('receipt', 'inbound')),
      -- A receipt of a message that was never stored (a concatenated submit whose parts never all came): what
      -- it tells, instead of the message's row. NULL for every other entry.
      receipt_id text,
      sender text,
      recipient text,
      status text NOT NULL,
      error_code text,
      created_at timestamptz NOT NULL DEFAULT now(),
      leased_by text,
      lease_until timestamptz
    );
    CREATE INDEX smpp_outbox_account_idx ON smpp_outbox (account_id, id);

    CREATE FUNCTION smpp_outbox_receipt() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO smpp_outbox (account_id, message_id, kind, status, error_code)
      VALUES (NEW.account_id, NEW.id, 'receipt', NEW.status, NEW.error_code);
      RETURN NULL;
    END $$;
    CREATE TRIGGER smpp_outbox_receipt AFTER UPDATE OF status ON messages FOR EACH ROW
      WHEN (NEW.smpp_receipt IS NOT NULL AND NEW.status IN ('delivered', 'undelivered', 'failed') AND OLD.status IS DISTINCT FROM NEW.status)
      EXECUTE FUNCTION smpp_outbox_receipt();

    CREATE FUNCTION smpp_outbox_inbound() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT FROM smpp_credentials WHERE account_id = NEW.account_id) THEN
        INSERT INTO smpp_outbox (account_id, message_id, kind, status) VALUES (NEW.account_id, NEW.id, 'inbound', NEW.status);
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER smpp_outbox_inbound AFTER INSERT ON messages FOR EACH ROW
      WHEN (NEW.direction = 'inbound')
      EXECUTE FUNCTION smpp_outbox_inbound();
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
