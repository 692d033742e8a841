import type { Knex } from "knex";

// Reports (docs/REPORTS.md): a status change is counted by the statement that makes it (a CTE appending
// message_count_deltas beside the history rows, db/messageCounts.ts countStatusEventsSql), no longer by the
// history trigger of 036 grouping a transition table and looking every message up again (38 % of the
// lifecycle's pgbench ceiling; bench/NOTES.md, "status counts in the statements").
// The trigger stays for the statements of a release before this one, which insert history without counting,
// during a rolling upgrade: a statement that counted itself sets sms.status_counted for its transaction, and
// the trigger then leaves its rows alone. Dropping the trigger is for a later release, once no release before
// this one can be running.
const NIL = "'00000000-0000-0000-0000-000000000000'::uuid";
const KEYS = "account_id, bucket, event, country, category, campaign_id, connector_id, error_code, ttd";
const TTD_BOUNDS_SECONDS = [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400];

const countStatusChanges = `
  CREATE OR REPLACE FUNCTION count_status_changes() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF current_setting('sms.status_counted', true) = 'on' THEN RETURN NULL; END IF;
    INSERT INTO message_count_deltas (${KEYS}, messages, segments)
    SELECT h.account_id, to_timestamp(floor(extract(epoch FROM h.at) / 900) * 900) AS bucket, h.status AS event,
           coalesce(m.country, '') AS country, m.category,
           coalesce(m.campaign_id, ${NIL}) AS campaign_id, coalesce(m.connector_id, ${NIL}) AS connector_id,
           CASE WHEN h.status IN ('failed', 'undelivered') THEN coalesce(m.error_code, '') ELSE '' END AS error_code,
           CASE WHEN h.status = 'delivered'
                THEN width_bucket(extract(epoch FROM h.at - m.scheduled_at)::float8, '{${TTD_BOUNDS_SECONDS.join(",")}}'::float8[])::smallint
                ELSE (-1)::smallint END AS ttd,
           count(*) AS messages, sum(m.segments) AS segments
      FROM changed h JOIN messages m ON m.account_id = h.account_id AND m.id = h.message_id
     WHERE NOT m.test
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9;
    RETURN NULL;
  END $$`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(countStatusChanges);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
