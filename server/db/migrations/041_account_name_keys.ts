import type { Knex } from "knex";

// Account names are unique as people tell them apart: trimmed, NFKC, case-folded (`Acme`, `ACME `, fullwidth
// `ＡＣＭＥ` are one name). The key is made in code (PostgreSQL's lower() folds only what its locale knows; the
// embedded server's is C) and held by a unique index. Accounts already named alike keep their names; the
// oldest keeps the plain key, each later one a key ending in its id, so the index holds and nothing is renamed
// (the operator may tell their users). The unique index on `name` stays for a release before this one,
// whose first-start insert names it in ON CONFLICT during a rolling upgrade. Frozen: the fold is written out
// here, not imported.
const keyOf = (name: string): string => name.trim().normalize("NFKC").toUpperCase().toLowerCase().normalize("NFKC");

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE accounts ADD COLUMN name_key text`);
  const { rows } = await knex.raw<{ rows: { id: string; name: string }[] }>(`SELECT id, name FROM accounts ORDER BY created_at, id`);
  const seen = new Set<string>();
  const keys = rows.map((r) => {
    const key = keyOf(r.name);
    if (!seen.has(key)) {
      seen.add(key);
      return key;
    }
    return `${key}#${r.id}`;
  });
  if (rows.length > 0)
    await knex.raw(`UPDATE accounts a SET name_key = k.key FROM unnest(?::uuid[], ?::text[]) AS k(id, key) WHERE a.id = k.id`, [
      rows.map((r) => r.id),
      keys,
    ]);
  await knex.raw(`CREATE UNIQUE INDEX accounts_name_fold_key ON accounts (name_key)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP INDEX accounts_name_fold_key`);
  await knex.raw(`ALTER TABLE accounts DROP COLUMN name_key`);
}
