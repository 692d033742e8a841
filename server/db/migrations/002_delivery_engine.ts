import type { Knex } from "knex";

// The delivery engine: campaign audiences, the receipt outbox, and the simulator's own record of what it was
// handed (the simulated carrier's state, so a test can count provider calls across processes).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE campaigns
      ADD COLUMN audience_size  integer NOT NULL DEFAULT 0 CHECK (audience_size >= 0),
      ADD COLUMN fanout_done    integer NOT NULL DEFAULT 0 CHECK (fanout_done >= 0),
      ADD COLUMN completed_at   timestamptz,
      ADD COLUMN cancelled_at   timestamptz,
      ADD CONSTRAINT campaigns_fanout_bounds CHECK (fanout_done <= audience_size);

    -- The audience as it was when the campaign was created: later changes to the group or its contacts do
    -- not change who receives it. Fan-out turns these rows into messages in batches, in seq order.
    CREATE TABLE campaign_recipients (
      campaign_id  uuid NOT NULL REFERENCES campaigns(id) ON DELETE CASCADE,
      seq          integer NOT NULL CHECK (seq >= 1),
      phone        text NOT NULL,
      first_name   text,
      PRIMARY KEY (campaign_id, seq)
    );

    -- The transactional outbox of delivery receipts: one row per (status change, webhook), written in the
    -- same transaction as the status change. seq orders the receipts of one message.
    CREATE TABLE webhook_deliveries (
      id            uuid PRIMARY KEY,
      webhook_id    uuid NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
      account_id    uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      message_id    uuid REFERENCES messages(id) ON DELETE CASCADE,
      event         text NOT NULL,
      seq           integer NOT NULL,
      body          text NOT NULL,
      status        text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
      -- Waiting for an earlier receipt of the same message to this webhook; released when that one finishes.
      parked        boolean NOT NULL DEFAULT false CHECK (NOT parked OR status = 'pending'),
      attempts      jsonb NOT NULL DEFAULT '[]',
      created_at    timestamptz NOT NULL DEFAULT now(),
      finished_at   timestamptz,
      CHECK ((status = 'pending') = (finished_at IS NULL))
    );
    CREATE INDEX webhook_deliveries_webhook_page_idx ON webhook_deliveries (webhook_id, created_at DESC, id DESC);
    CREATE INDEX webhook_deliveries_order_idx ON webhook_deliveries (message_id, webhook_id, seq);

    CREATE TABLE simulator_submissions (
      id                   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      message_id           uuid NOT NULL,
      provider_message_id  text NOT NULL,
      recipient            text NOT NULL,
      outcome              text NOT NULL,
      submitted_at         timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX simulator_submissions_message_idx ON simulator_submissions (message_id);
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
