import type { Knex } from "knex";

// A message still waiting to be sent when its body's retention passed (scheduled further ahead than
// MESSAGE_BODY_RETENTION_DAYS, or held by quiet hours or a cap) is skipped by the walk, which then moves on for
// good: it is listed here instead, and erased by a later run once it is final. Owned by db/retention.ts; a
// row goes with its message (ON DELETE CASCADE).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE bodies_awaiting_erasure (
      message_id uuid PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
      account_id uuid NOT NULL
    )`);
  await knex.raw(`CREATE INDEX bodies_awaiting_erasure_account_idx ON bodies_awaiting_erasure (account_id)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TABLE bodies_awaiting_erasure`);
}
