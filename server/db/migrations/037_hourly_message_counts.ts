import type { Knex } from "knex";

// Reports (docs/REPORTS.md): message_counts summed again by the UTC hour, so a report in a zone whose offset is
// whole hours reads a quarter of the rows (bench/NOTES.md, issue 36). message_counts_hourly is kept by two
// statement-level triggers on message_counts, in the statement that changes it: a row added there adds its
// counts here, a row updated adds the difference. Whoever moves the deltas (this release's chore, or the
// previous release's during a rolling upgrade) keeps both tables equal without knowing of the second.
// The existing counts are summed here after the triggers exist: creating a trigger locks message_counts against
// writes until this migration commits, so every change is counted by exactly one of the two.
const KEYS = "account_id, bucket, event, country, category, campaign_id, connector_id, error_code, ttd";
const REST = "event, country, category, campaign_id, connector_id, error_code, ttd";
const HOUR = (at: string) => `to_timestamp(floor(extract(epoch FROM ${at}) / 3600) * 3600)`;

/** Rows of `changes` (keys of message_counts, messages, segments) added to the hourly counts. */
const addToHourly = (changes: string) => `
  INSERT INTO message_counts_hourly AS c (${KEYS}, messages, segments)
  SELECT account_id, ${HOUR("bucket")}, ${REST}, sum(messages), sum(segments)
    FROM (${changes}) d
   GROUP BY account_id, ${HOUR("bucket")}, ${REST}
  ON CONFLICT (${KEYS}) DO UPDATE
     SET messages = c.messages + excluded.messages, segments = c.segments + excluded.segments`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE message_counts_hourly (LIKE message_counts INCLUDING DEFAULTS INCLUDING CONSTRAINTS,
      PRIMARY KEY (${KEYS}),
      FOREIGN KEY (account_id) REFERENCES accounts (id) ON DELETE CASCADE
    );

    CREATE FUNCTION count_hourly_added() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      ${addToHourly(`SELECT ${KEYS}, messages, segments FROM added`)};
      RETURN NULL;
    END $$;
    CREATE TRIGGER message_counts_added AFTER INSERT ON message_counts REFERENCING NEW TABLE AS added
      FOR EACH STATEMENT EXECUTE FUNCTION count_hourly_added();

    CREATE FUNCTION count_hourly_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      ${addToHourly(`SELECT ${KEYS.split(", ")
        .map((k) => `n.${k}`)
        .join(", ")}, n.messages - o.messages AS messages, n.segments - o.segments AS segments
                       FROM after n JOIN before o USING (${KEYS})`)};
      RETURN NULL;
    END $$;
    CREATE TRIGGER message_counts_changed AFTER UPDATE ON message_counts REFERENCING OLD TABLE AS before NEW TABLE AS after
      FOR EACH STATEMENT EXECUTE FUNCTION count_hourly_changed();
  `);
  await knex.raw(addToHourly("SELECT * FROM message_counts"));
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
