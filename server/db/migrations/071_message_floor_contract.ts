import type { Knex } from "knex";

// The contract of 064 (the message at the durable floor), a release after it: no release in service writes
// message_status_history any more (the release before this one derives history from the row's times), so
// - failed_at is filled once more for a message a 064-era older worker failed without it (from its stored
//   history, the only place that time was), then required for a failed or undelivered message (a CHECK,
//   added NOT VALID and validated apart, so the check reads the table without holding its writes: a table
//   scan, measured in docs/OPERATIONS.md, "Upgrades");
// - message_status_history goes, with its two triggers (the account id filled in for an older release's
//   insert, 019; its counting for reports, 036) and their functions. The statements that change a status
//   stop telling that trigger they counted themselves (db/messageCounts.ts).
// Who writes failed_at: the status change (db/messages/statusChange.ts), nothing else.
// Outside a transaction, each step its own, so the validation reads the table without the ADD's lock; each
// step may run again, so an interrupted run is simply run again.
export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    UPDATE messages m SET failed_at = coalesce(
        (SELECT max(h.at) FROM message_status_history h WHERE h.message_id = m.id AND h.status = m.status), m.created_at)
      WHERE m.status IN ('failed', 'undelivered') AND m.failed_at IS NULL;
  `);
  await knex.raw(`
    DO $$ BEGIN
      IF NOT EXISTS (SELECT FROM pg_constraint WHERE conname = 'messages_failed_at_check') THEN
        ALTER TABLE messages ADD CONSTRAINT messages_failed_at_check
          CHECK (status NOT IN ('failed', 'undelivered') OR failed_at IS NOT NULL) NOT VALID;
      END IF;
    END $$;
  `);
  await knex.raw("ALTER TABLE messages VALIDATE CONSTRAINT messages_failed_at_check");
  await knex.raw(`
    DROP TABLE IF EXISTS message_status_history;
    DROP FUNCTION IF EXISTS message_status_history_account_id();
    DROP FUNCTION IF EXISTS count_status_changes();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE messages DROP CONSTRAINT messages_failed_at_check;
    CREATE TABLE message_status_history (
      id bigint NOT NULL GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      message_id uuid NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
      status text NOT NULL CHECK (status IN ('sent', 'delivered', 'failed', 'undelivered', 'cancelled')),
      at timestamptz NOT NULL DEFAULT now(),
      account_id uuid,
      CONSTRAINT message_status_history_account_id_not_null CHECK (account_id IS NOT NULL)
    );
    CREATE INDEX message_status_history_message_idx ON message_status_history (message_id, id);
    CREATE FUNCTION message_status_history_account_id() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.account_id := (SELECT account_id FROM messages WHERE id = NEW.message_id);
        RETURN NEW;
      END $$;
    CREATE TRIGGER message_status_history_account_id BEFORE INSERT ON message_status_history
      FOR EACH ROW WHEN (NEW.account_id IS NULL) EXECUTE FUNCTION message_status_history_account_id();
    CREATE FUNCTION count_status_changes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF current_setting('sms.status_counted', true) = 'on' THEN RETURN NULL; END IF;
        INSERT INTO message_count_deltas (account_id, bucket, event, country, category, campaign_id, connector_id, error_code, ttd, messages, segments)
        SELECT h.account_id, to_timestamp(floor(extract(epoch FROM h.at) / 900) * 900), h.status,
               coalesce(m.country, ''), m.category,
               coalesce(m.campaign_id, '00000000-0000-0000-0000-000000000000'::uuid), coalesce(m.connector_id, '00000000-0000-0000-0000-000000000000'::uuid),
               CASE WHEN h.status IN ('failed', 'undelivered') THEN coalesce(m.error_code, '') ELSE '' END,
               CASE WHEN h.status = 'delivered'
                    THEN width_bucket(extract(epoch FROM h.at - m.scheduled_at)::float8, '{1,2,5,10,20,30,60,120,300,600,1800,3600,7200,21600,86400}'::float8[])::smallint
                    ELSE (-1)::smallint END,
               count(*), sum(m.segments)
          FROM changed h JOIN messages m ON m.account_id = h.account_id AND m.id = h.message_id
         WHERE NOT m.test
         GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9;
        RETURN NULL;
      END $$;
    CREATE TRIGGER message_status_history_counted AFTER INSERT ON message_status_history
      REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION count_status_changes();
  `);
}
