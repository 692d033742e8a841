import type { Knex } from "knex";

// Flat costs as history grows (bench:history measures them on millions of messages), and retention.
// - gen_uuid_v7(): time-ordered ids for every new row (the app makes the same, domain/uuidv7.ts). Random ids put
//   each new message on a random page of messages_pkey; once the index outgrows memory every insert reads one
//   from disk and, after a checkpoint, writes it whole to the WAL. Named apart from PostgreSQL 18's uuidv7().
// - Indexes that match every filter the API offers, each in the list's own order (created_at DESC, id DESC),
//   so a page stops after `limit` rows instead of filtering the account's whole history:
//   status=scheduled (scheduled or sending: few rows, a small partial index), the rarer statuses (sent, failed,
//   undelivered, cancelled; delivered is the bulk and the account's page index serves it), a campaign's
//   messages, and the deliveries log by status (pending, failed; succeeded is the bulk).
// - Maintenance sweeps that read only what they act on: parked receipts, expired idempotency keys.
// Status updates cannot be HOT updates with any index whose key or predicate names `status` (PostgreSQL counts
// predicate columns too), and the scheduled filter needs one: see docs/SCALING.md.
// - Retention: a per-account override of MESSAGE_RETENTION_DAYS, and how far bodies have been redacted.
//   Redaction empties the body, which the old CHECK refused; the new CHECK is added NOT VALID and validated
//   separately (no long exclusive lock on a large table).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION gen_uuid_v7() RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
      SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
               PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
               FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
    $$;
    ALTER TABLE accounts ALTER COLUMN id SET DEFAULT gen_uuid_v7();
    ALTER TABLE groups ALTER COLUMN id SET DEFAULT gen_uuid_v7();
    ALTER TABLE contacts ALTER COLUMN id SET DEFAULT gen_uuid_v7();
    ALTER TABLE campaigns ALTER COLUMN id SET DEFAULT gen_uuid_v7();
    ALTER TABLE jobs ALTER COLUMN id SET DEFAULT gen_uuid_v7();
    ALTER TABLE messages ALTER COLUMN id SET DEFAULT gen_uuid_v7();
    ALTER TABLE webhooks ALTER COLUMN id SET DEFAULT gen_uuid_v7();
    ALTER TABLE webhook_deliveries ALTER COLUMN id SET DEFAULT gen_uuid_v7();

    CREATE INDEX messages_pending_page_idx ON messages (account_id, created_at DESC, id DESC)
      WHERE status IN ('scheduled', 'sending');
    CREATE INDEX messages_status_page_idx ON messages (account_id, status, created_at DESC, id DESC)
      WHERE status IN ('sent', 'failed', 'undelivered', 'cancelled');
    CREATE INDEX messages_campaign_page_idx ON messages (campaign_id, created_at DESC, id DESC)
      WHERE campaign_id IS NOT NULL;
    CREATE INDEX webhook_deliveries_status_page_idx ON webhook_deliveries (webhook_id, status, created_at DESC, id DESC)
      WHERE status <> 'succeeded';
    CREATE INDEX webhook_deliveries_parked_idx ON webhook_deliveries (message_id, webhook_id, seq) WHERE parked;
    CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);

    ALTER TABLE accounts
      ADD COLUMN message_retention_days integer CHECK (message_retention_days >= 1),
      ADD COLUMN bodies_redacted_before timestamptz;
    ALTER TABLE messages ADD CONSTRAINT messages_body_length CHECK (length(body) <= 1600) NOT VALID;
    ALTER TABLE messages VALIDATE CONSTRAINT messages_body_length;
    ALTER TABLE messages DROP CONSTRAINT messages_body_check;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
