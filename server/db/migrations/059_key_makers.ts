import type { Knex } from "knex";

// Who made a key (CONTRACT "Changed (turn 5)": a key is never more than the person who made it).
// - api_keys.created_by_user_id: the user whose session made the key, or a key made by such a key (it inherits
//   its maker's); NULL for keys made by the operator, the command line or the first start. No foreign key on
//   purpose: a key must never outlive its maker's rules by losing the reference (ON DELETE SET NULL would turn a
//   person's key into an unbounded one). Removing the user revokes its keys in the same transaction
//   (operator/users.ts, removeUser), and authentication refuses a key whose maker is gone (rateLimitsTable.ts).
// - api_keys.created_by_email: the maker's address when the key was made, shown when the user row is gone.
// Who moves them: the key services (operator/apiKeyAdmin.ts) when a key is made; never changed after.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE api_keys
      ADD COLUMN created_by_user_id uuid,
      ADD COLUMN created_by_email text,
      ADD CONSTRAINT api_keys_created_by_check CHECK ((created_by_user_id IS NULL) = (created_by_email IS NULL)),
      ADD CONSTRAINT api_keys_created_by_kind_check CHECK (created_by_user_id IS NULL OR kind = 'account');
    CREATE INDEX api_keys_created_by_idx ON api_keys (created_by_user_id) WHERE created_by_user_id IS NOT NULL AND revoked_at IS NULL;
  `);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
