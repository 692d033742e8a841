import type { Knex } from "knex";

// An Idempotency-Key replay returns the first response byte for byte: jsonb stores its keys reordered (by
// length, then bytes), so the answer is kept as the text it was sent as. The jsonb column stays, written too,
// for a release before this one reading a replay during a rolling upgrade; a later release may drop it.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE idempotency_keys ADD COLUMN response_text text`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE idempotency_keys DROP COLUMN response_text`);
}
