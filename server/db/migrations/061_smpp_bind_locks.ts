import type { Knex } from "knex";

// SMPP binds cannot be guessed (docs/SMPP.md, "For client applications"): each credential counts its failed binds
// in a 15-minute window (failed_binds since failures_since); the tenth locks it until locked_until, whatever
// password comes, until the window ends or the operator unlocks it. system_id is unique as people tell ids apart:
// NFKC, case-folded, format characters removed (`BRAVO01` and `bravo01` are one id), a key made in code
// (PostgreSQL's lower() folds only what its locale knows) and held by a unique index. Credentials already named
// alike keep their system_ids: the oldest keeps the plain key, each later one a key ending in its own system_id,
// so the index holds and no client's bind breaks. Frozen: the fold is written out here, not imported.
const keyOf = (systemId: string): string =>
  systemId
    .normalize("NFKC")
    .replace(/\p{Cf}/gu, "")
    .toUpperCase()
    .toLowerCase()
    .normalize("NFKC");

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE smpp_credentials
      ADD COLUMN system_id_key text,
      ADD COLUMN failed_binds integer NOT NULL DEFAULT 0,
      ADD COLUMN failures_since timestamptz,
      ADD COLUMN locked_until timestamptz
  `);
  const { rows } = await knex.raw<{ rows: { system_id: string }[] }>(
    `SELECT system_id FROM smpp_credentials ORDER BY created_at, system_id`,
  );
  const seen = new Set<string>();
  const keys = rows.map((r) => {
    const key = keyOf(r.system_id);
    if (!seen.has(key)) {
      seen.add(key);
      return key;
    }
    return `${key}#${r.system_id}`;
  });
  if (rows.length > 0)
    await knex.raw(
      `UPDATE smpp_credentials c SET system_id_key = k.key FROM unnest(?::text[], ?::text[]) AS k(system_id, key) WHERE c.system_id = k.system_id`,
      [rows.map((r) => r.system_id), keys],
    );
  await knex.raw(`CREATE UNIQUE INDEX smpp_credentials_system_id_fold_key ON smpp_credentials (system_id_key)`);
}

export async function down(): Promise<void> {
  throw new Error("migrations are forward-only");
}
