import type { Knex } from "knex";

// Two-way messaging and consent: the numbers an account owns (unique in the whole service, so an inbound
// message has one owner), the account's settings (the auto-reply texts), the per-account opt-out list and the
// auto-reply throttle; inbound messages in the messages table (direction), and the events a webhook receives.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE numbers (
      id            uuid PRIMARY KEY DEFAULT gen_uuid_v7(),
      account_id    uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      phone_number  text NOT NULL CHECK (phone_number ~ '^\\+[1-9][0-9]{6,14}$'),
      name          text CHECK (length(name) BETWEEN 1 AND 100),
      created_at    timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT numbers_phone_number_key UNIQUE (phone_number)
    );
    CREATE INDEX numbers_account_page_idx ON numbers (account_id, created_at DESC, id DESC);

    -- One row per account once a setting was changed; the column defaults are the defaults of the contract, and
    -- an account without a row has them all. NULL means "send no reply".
    CREATE TABLE account_settings (
      account_id     uuid PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
      opt_out_reply  text DEFAULT 'You have been unsubscribed and will receive no more messages. Reply START to resubscribe.'
                     CHECK (length(opt_out_reply) BETWEEN 1 AND 320),
      opt_in_reply   text DEFAULT 'You have been resubscribed. Reply STOP to unsubscribe.'
                     CHECK (length(opt_in_reply) BETWEEN 1 AND 320),
      help_reply     text DEFAULT 'Reply STOP to unsubscribe. Msg & data rates may apply.'
                     CHECK (length(help_reply) BETWEEN 1 AND 320),
      updated_at     timestamptz NOT NULL DEFAULT now()
    );

    -- Not tied to contacts: deleting a contact never removes an opt-out.
    CREATE TABLE opt_outs (
      id          uuid NOT NULL DEFAULT gen_uuid_v7() UNIQUE,
      account_id  uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      phone       text NOT NULL CHECK (phone ~ '^\\+[1-9][0-9]{6,14}$'),
      source      text NOT NULL CHECK (source IN ('keyword', 'api')),
      keyword     text,
      message_id  uuid,
      created_at  timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (account_id, phone),
      CHECK ((source = 'keyword') = (keyword IS NOT NULL))
    );
    CREATE INDEX opt_outs_account_page_idx ON opt_outs (account_id, created_at DESC, id DESC);

    -- When each kind of auto-reply last went to a number: at most one of a kind per number per 60 s.
    CREATE TABLE auto_replies (
      account_id    uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      phone         text NOT NULL,
      kind          text NOT NULL CHECK (kind IN ('opt_out', 'opt_in', 'help')),
      last_sent_at  timestamptz NOT NULL,
      PRIMARY KEY (account_id, phone, kind)
    );

    -- Inbound messages live beside outbound ones (one id space, one list, one conversation): recipient is the
    -- account's number, sender the person. They have no job and no schedule.
    ALTER TABLE messages
      ADD COLUMN direction        text NOT NULL DEFAULT 'outbound' CHECK (direction IN ('outbound', 'inbound')),
      ADD COLUMN received_at      timestamptz,
      ADD COLUMN incomplete       boolean NOT NULL DEFAULT false,
      -- Keyword confirmations: sent even to a number on the opt-out list.
      ADD COLUMN bypasses_opt_out boolean NOT NULL DEFAULT false,
      ALTER COLUMN job_id DROP NOT NULL,
      ALTER COLUMN scheduled_at DROP NOT NULL,
      DROP CONSTRAINT messages_status_check,
      ADD CONSTRAINT messages_status_check
        CHECK (status IN ('scheduled', 'sending', 'sent', 'delivered', 'failed', 'undelivered', 'cancelled', 'received')),
      ADD CONSTRAINT messages_direction_shape CHECK (
        CASE direction
          WHEN 'inbound' THEN status = 'received' AND received_at IS NOT NULL
          ELSE status <> 'received' AND job_id IS NOT NULL AND scheduled_at IS NOT NULL
        END);
    CREATE INDEX messages_inbound_page_idx ON messages (account_id, created_at DESC, id DESC) WHERE direction = 'inbound';
    -- A conversation: outbound messages to a number and inbound ones from it.
    CREATE INDEX messages_recipient_page_idx ON messages (account_id, recipient, created_at DESC, id DESC) WHERE direction = 'outbound';
    CREATE INDEX messages_sender_page_idx ON messages (account_id, sender, created_at DESC, id DESC) WHERE direction = 'inbound';

    ALTER TABLE campaigns ADD COLUMN opted_out integer NOT NULL DEFAULT 0 CHECK (opted_out >= 0);

    -- Absent on create means the four receipts, so a receiver written for receipts never sees another event.
    ALTER TABLE webhooks
      ADD COLUMN events text[] NOT NULL DEFAULT '{dlr.sent,dlr.delivered,dlr.failed,dlr.undelivered}'
        CHECK (cardinality(events) >= 1);
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
