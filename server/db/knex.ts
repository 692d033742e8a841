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

export async function migrateLatest(db: Db): Promise<string[]> {
  const [, applied] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return applied;
}

/** True when every migration this build knows is applied. */
export async function migrationsCurrent(db: Db): Promise<boolean> {
  const [, pending] = (await db.migrate.list({ migrationSource })) as [unknown[], unknown[]];
  return pending.length === 0;
}
