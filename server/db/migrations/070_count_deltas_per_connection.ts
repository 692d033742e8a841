import type { Knex } from "knex";

// Counts without a row per request (issue "the durable floor", docs/REPORTS.md, "How counts are kept"): a
// statement that makes events adds them to its connection's delta row for their key instead of appending a row
// of its own. `backend` is the PostgreSQL backend the statement ran on (pg_backend_pid()): a connection runs
// one transaction at a time, so no two transactions in flight ever add to the same row, and the add is an
// update of two counters no index holds, a HOT update (fillfactor 50 keeps room on the page for it). One by
// one, `POST /messages` wrote a delta row per request and the chore deleted it (2.5 of its row writes a
// message); now a connection's row per key lives until the chore folds it (db/messageCounts.ts).
// Rows written without `backend` (the triggers of 036 counting an older release's statements during a rolling
// upgrade, and that release's own inserts) take a negative number of their own from a sequence: never a
// backend's, never another's, so their plain INSERT never meets the unique key.
// Who writes it: the counting statements (db/messageCounts.ts, add to the row); who deletes: the chore's fold.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE SEQUENCE message_count_deltas_unkeyed INCREMENT BY -1 MAXVALUE -1 START WITH -1;
    ALTER TABLE message_count_deltas ADD COLUMN backend bigint NOT NULL DEFAULT nextval('message_count_deltas_unkeyed');
    ALTER SEQUENCE message_count_deltas_unkeyed OWNED BY message_count_deltas.backend;
    CREATE UNIQUE INDEX message_count_deltas_key ON message_count_deltas
      (account_id, bucket, event, country, category, campaign_id, connector_id, error_code, ttd, backend);
    ALTER TABLE message_count_deltas SET (fillfactor = 50);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE message_count_deltas RESET (fillfactor);
    DROP INDEX message_count_deltas_key;
    ALTER TABLE message_count_deltas DROP COLUMN backend;
  `);
}
