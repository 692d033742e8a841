import knexFactory, { type Knex } from "knex";
import pg from "pg";
import { migrationSource } from "./migrations/index.js";

// bigint and numeric counts come back as JS numbers; every count here fits easily.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Db = Knex;

export function createDb(connectionString: string, poolMax = 10): Db {
  return knexFactory({
    client: "pg",
    connection: { connectionString, application_name: "sms-platform" },
    pool: { min: 0, max: poolMax },
    acquireConnectionTimeout: 10_000,
  });
}

/** What the database holds against what this build knows: migrations still to apply, and applied ones it does not know. */
export interface SchemaState {
  pending: string[];
  unknown: string[];
}

export async function schemaState(db: Db): Promise<SchemaState> {
  const known = await migrationSource.getMigrations([]);
  const applied: string[] = (await db.schema.hasTable("knex_migrations"))
    ? (await db("knex_migrations").select("name")).map((row: { name: string }) => row.name)
    : [];
  return { pending: known.filter((m) => !applied.includes(m)), unknown: applied.filter((m) => !known.includes(m)) };
}

/** A database migrated by a newer release: this build must not run against a schema it cannot know. */
export class SchemaAheadError extends Error {
  constructor(readonly unknown: string[]) {
    super(
      `The database schema is newer than this build: it has migrations this build does not know (${unknown.join(", ")}). ` +
        "A newer release migrated it; run that release (or a later one), or restore a backup taken before the upgrade.",
    );
    this.name = "SchemaAheadError";
  }
}

/** Applies pending migrations, unless the database is ahead of this build (then SchemaAheadError, nothing changed). */
export async function migrateLatest(db: Db): Promise<string[]> {
  const { unknown } = await schemaState(db);
  if (unknown.length) throw new SchemaAheadError(unknown);
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}
