import type { Knex } from "knex";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";

// Reports (docs/REPORTS.md): message events counted as they happen, per account, 15-minute bucket and the keys a
// report groups by, so a report reads counts, not messages, and the counts outlive retention.
// - messages.country: the other party's country (the recipient's, an inbound message's sender's), set when the
//   message is stored.
// - message_count_deltas: appended by two statement-level triggers in the transaction that makes the event (a
//   message stored: accepted or received; a status history row: sent, delivered, failed, undelivered,
//   cancelled), one row per key and statement, never updated: no two transactions wait on one counter.
// - message_counts: the deltas summed by the leader's chore (DELETE … RETURNING into an upsert, one statement:
//   a delta is moved once or not at all). A report adds both.
// Existing messages get their country and are counted here, after the triggers exist: creating a trigger locks
// the table against writes until this migration commits, so every event is counted by exactly one of the two.
const NIL = "'00000000-0000-0000-0000-000000000000'::uuid";
const BUCKET = (at: string) => `to_timestamp(floor(extract(epoch FROM ${at}) / 900) * 900)`;
const COUNT_COLUMNS = `account_id uuid NOT NULL,
      bucket timestamptz NOT NULL,
      event text NOT NULL CHECK (event IN ('accepted', 'received', 'sent', 'delivered', 'failed', 'undelivered', 'cancelled')),
      country text NOT NULL,
      category text NOT NULL,
      campaign_id uuid NOT NULL,
      connector_id uuid NOT NULL,
      error_code text NOT NULL,
      ttd smallint NOT NULL,
      messages bigint NOT NULL,
      segments bigint NOT NULL`;
const KEYS = "account_id, bucket, event, country, category, campaign_id, connector_id, error_code, ttd";

/** Upper bounds (seconds) of the time-to-delivered buckets: domain/reports.ts keeps the same list. */
const TTD_BOUNDS_SECONDS = [1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400];

/** The time-to-delivered bucket of an interval: how many bounds it reached (width_bucket, a binary search). */
const ttdBucket = (interval: string) =>
  `width_bucket(extract(epoch FROM ${interval})::float8, '{${TTD_BOUNDS_SECONDS.join(",")}}'::float8[])::smallint`;

/** What a stored message counts as: accepted (outbound, by creation) or received (inbound). */
const newMessageEvents = (from: string) => `
  SELECT account_id, ${BUCKET("CASE WHEN direction = 'inbound' THEN received_at ELSE created_at END")} AS bucket,
         CASE WHEN direction = 'inbound' THEN 'received' ELSE 'accepted' END AS event,
         coalesce(country, '') AS country, CASE WHEN direction = 'inbound' THEN '' ELSE category END AS category,
         coalesce(campaign_id, ${NIL}) AS campaign_id, ${NIL} AS connector_id, '' AS error_code, (-1)::smallint AS ttd,
         count(*) AS messages, sum(segments) AS segments
    FROM ${from} WHERE NOT test
   GROUP BY 1, 2, 3, 4, 5, 6`;

/** What a status history row counts as, with its message's keys. */
const statusEvents = (from: string) => `
  SELECT h.account_id, ${BUCKET("h.at")} AS bucket, h.status AS event, coalesce(m.country, '') AS country, m.category,
         coalesce(m.campaign_id, ${NIL}) AS campaign_id, coalesce(m.connector_id, ${NIL}) AS connector_id,
         CASE WHEN h.status IN ('failed', 'undelivered') THEN coalesce(m.error_code, '') ELSE '' END AS error_code,
         CASE WHEN h.status = 'delivered' THEN ${ttdBucket("h.at - m.scheduled_at")} ELSE (-1)::smallint END AS ttd,
         count(*) AS messages, sum(m.segments) AS segments
    FROM ${from} h JOIN messages m ON m.account_id = h.account_id AND m.id = h.message_id
   WHERE NOT m.test
   GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE messages ADD COLUMN country text;
    CREATE TABLE message_counts (
      ${COUNT_COLUMNS},
      PRIMARY KEY (${KEYS}),
      FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE
    );
    CREATE INDEX message_counts_bucket_idx ON message_counts (bucket);
    CREATE TABLE message_count_deltas (${COUNT_COLUMNS});

    CREATE FUNCTION count_stored_messages() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO message_count_deltas (${KEYS}, messages, segments) ${newMessageEvents("stored")};
      RETURN NULL;
    END $$;
    CREATE TRIGGER messages_counted AFTER INSERT ON messages REFERENCING NEW TABLE AS stored
      FOR EACH STATEMENT EXECUTE FUNCTION count_stored_messages();

    CREATE FUNCTION count_status_changes() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO message_count_deltas (${KEYS}, messages, segments) ${statusEvents("changed")};
      RETURN NULL;
    END $$;
    CREATE TRIGGER message_status_history_counted AFTER INSERT ON message_status_history REFERENCING NEW TABLE AS changed
      FOR EACH STATEMENT EXECUTE FUNCTION count_status_changes();
  `);
  // The existing messages' countries, by the first seven digits of the other party's number (one parse each).
  const { rows } = await knex.raw<{ rows: { prefix: string; sample: string }[] }>(`
    SELECT DISTINCT ON (left(party, 8)) left(party, 8) AS prefix, party AS sample
      FROM (SELECT CASE WHEN direction = 'inbound' THEN sender ELSE recipient END AS party FROM messages) p
     ORDER BY left(party, 8)`);
  const found = rows
    .map((r) => ({ prefix: r.prefix, country: r.sample.startsWith("+") ? (parsePhoneNumberFromString(r.sample)?.country ?? "") : "" }))
    .filter((r) => r.country !== "");
  if (found.length > 0)
    await knex.raw(
      `UPDATE messages m SET country = c.country
         FROM unnest(?::text[], ?::text[]) AS c(prefix, country)
        WHERE left(CASE WHEN m.direction = 'inbound' THEN m.sender ELSE m.recipient END, 8) = c.prefix`,
      [found.map((r) => r.prefix), found.map((r) => r.country)],
    );
  await knex.raw(`
    INSERT INTO message_counts (${KEYS}, messages, segments)
    SELECT ${KEYS}, sum(messages), sum(segments)
      FROM (${newMessageEvents("messages")} UNION ALL ${statusEvents("message_status_history")}) e
     GROUP BY ${KEYS}`);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
