import type { Knex } from "knex";

// Reports (docs/REPORTS.md): a message stored is counted by the statement that stores it (a CTE beside the
// INSERT, db/messageCounts.ts countStoredEventsSql), as 038 did for status changes, no longer by the trigger
// of 036 copying every new row, body and all, into a transition table (12 % of the lifecycle's pgbench
// ceiling; bench/NOTES.md, "status counts in the statements").
// The trigger stays for a release before this one, whose inserts do not count themselves, during a rolling
// upgrade: a statement that counted sets sms.stored_counted for its transaction, and the trigger then leaves
// its rows alone. Dropping it is for a later release, once no release before this one can be running.
const NIL = "'00000000-0000-0000-0000-000000000000'::uuid";
const KEYS = "account_id, bucket, event, country, category, campaign_id, connector_id, error_code, ttd";

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
  CREATE OR REPLACE FUNCTION count_stored_messages() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF current_setting('sms.stored_counted', true) = 'on' THEN RETURN NULL; END IF;
    INSERT INTO message_count_deltas (${KEYS}, messages, segments)
    SELECT account_id, to_timestamp(floor(extract(epoch FROM CASE WHEN direction = 'inbound' THEN received_at ELSE created_at END) / 900) * 900) AS bucket,
           CASE WHEN direction = 'inbound' THEN 'received' ELSE 'accepted' END AS event,
           coalesce(country, '') AS country, CASE WHEN direction = 'inbound' THEN '' ELSE category END AS category,
           coalesce(campaign_id, ${NIL}) AS campaign_id, ${NIL} AS connector_id, '' AS error_code, (-1)::smallint AS ttd,
           count(*) AS messages, sum(segments) AS segments
      FROM stored WHERE NOT test
     GROUP BY 1, 2, 3, 4, 5, 6;
    RETURN NULL;
  END $$`);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
