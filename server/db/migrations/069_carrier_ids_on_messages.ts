import type { Knex } from "knex";

// A one-part SMPP message keeps its carrier id on its own row (issue "the durable floor", docs/ARCHITECTURE.md,
// "The life of a message"): the send's status change already writes `provider_message_id` (and an index entry for
// it), so the row smpp_segments kept for every message (a heap tuple and four index entries) is written only for
// a message of several segments, in the same statement as its `sent` (db/messages/statusChange.ts).
// A receipt's id is matched by its key (lower case, leading zeros dropped; domain/carrierIds.ts), so the index on
// the provider's id becomes one on that key: carrier_id_key() is the expression smpp_segments.segment_key is
// stored with (migration 031), and a lookup by the exact id names both (`carrier_id_key(x) = carrier_id_key($1)
// AND x = $1`) to use it. job_account_of's provider_report branch is rewritten so.
// Side by side with the release before: its receipts for one-part messages this release sent find no segment
// row, wait, and are kept as unmatched; the chore that requeues kept receipts whose id a submit has recorded
// (db/unmatchedReceipts.ts) finds them on the message and a worker of this release applies them. Its exact
// lookups by provider id read the new index only through the rewritten function; the simulator's reports of an
// old worker read `messages` whole until it stops (docs/OPERATIONS.md, "Upgrades").
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION carrier_id_key(id text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      AS $$ SELECT coalesce(nullif(lower(ltrim(id, '0')), ''), '0') $$;
    CREATE INDEX messages_carrier_key_idx ON messages (carrier_id_key(provider_message_id)) WHERE provider_message_id IS NOT NULL;
    DROP INDEX messages_provider_id_idx;
    CREATE OR REPLACE FUNCTION job_account_of(p_kind text, p_payload jsonb) RETURNS uuid LANGUAGE sql STABLE AS $$
      SELECT CASE p_kind
        WHEN 'send_message' THEN (SELECT account_id FROM messages WHERE id = (p_payload->>'messageId')::uuid)
        WHEN 'deliver_receipt' THEN (SELECT account_id FROM webhook_deliveries WHERE id = (p_payload->>'deliveryId')::uuid)
        WHEN 'campaign_fanout' THEN (SELECT account_id FROM campaigns WHERE id = (p_payload->>'campaignId')::uuid)
        WHEN 'provider_report' THEN (SELECT account_id FROM messages
                                      WHERE carrier_id_key(provider_message_id) = carrier_id_key(p_payload->>'providerMessageId')
                                        AND provider_message_id = p_payload->>'providerMessageId'
                                      ORDER BY created_at DESC LIMIT 1)
      END
    $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE OR REPLACE FUNCTION job_account_of(p_kind text, p_payload jsonb) RETURNS uuid LANGUAGE sql STABLE AS $$
      SELECT CASE p_kind
        WHEN 'send_message' THEN (SELECT account_id FROM messages WHERE id = (p_payload->>'messageId')::uuid)
        WHEN 'deliver_receipt' THEN (SELECT account_id FROM webhook_deliveries WHERE id = (p_payload->>'deliveryId')::uuid)
        WHEN 'campaign_fanout' THEN (SELECT account_id FROM campaigns WHERE id = (p_payload->>'campaignId')::uuid)
        WHEN 'provider_report' THEN (SELECT account_id FROM messages WHERE provider_message_id = p_payload->>'providerMessageId'
                                      ORDER BY created_at DESC LIMIT 1)
      END
    $$;
    CREATE INDEX messages_provider_id_idx ON messages (provider_message_id) WHERE provider_message_id IS NOT NULL;
    DROP INDEX messages_carrier_key_idx;
    DROP FUNCTION carrier_id_key(text);
    -- A one-part message sent by this release has no segment row: its carrier id goes back to smpp_segments.
    INSERT INTO smpp_segments (segment_id, message_id, provider_message_id, seq, total)
      SELECT m.provider_message_id, m.id, m.provider_message_id, 1, 1 FROM messages m
       WHERE m.provider_message_id IS NOT NULL AND m.provider_message_id NOT LIKE 'sim-%'
         AND NOT EXISTS (SELECT 1 FROM smpp_segments s WHERE s.message_id = m.id);
  `);
}
