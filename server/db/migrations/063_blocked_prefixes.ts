import type { Knex } from "knex";

// Blocked destinations (docs/API.md, "Guards"): E.164 prefixes the operator blocks for one account, beside the
// deployment's BLOCKED_PREFIXES. Who writes it: the operator's PATCH /accounts/{accountId} (operator/accountAdmin.ts).
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE accounts ADD COLUMN blocked_prefixes text[] NOT NULL DEFAULT '{}'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE accounts DROP COLUMN blocked_prefixes`);
}
