import knexFactory, { type Knex } from "knex";
import pg from "pg";
import { choosesHost, HostChoice, parseDatabaseUrl, type HostPort } from "./hosts.js";
import { migrationSource } from "./migrations/index.js";

// bigint and numeric counts come back as JS numbers; every count here fits easily.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export type Db = Knex;

/**
 * A pool on `connectionString`. A URL with several hosts or target_session_attrs (db/hosts.ts) has each new
 * connection go to the host that fits now, so the pool follows a failover; `onHostChosen` hears of each change.
 */
export function createDb(connectionString: string, poolMax = 10, onHostChosen?: (host: HostPort, previous?: HostPort) => void): Db {
  const target = parseDatabaseUrl(connectionString);
  if (!choosesHost(target)) {
    return knexFactory({
      client: "pg",
      connection: { connectionString, application_name: "sms-platform" },
      pool: { min: 0, max: poolMax },
      acquireConnectionTimeout: 10_000,
    });
  }
  const choice = new HostChoice(target, { application_name: "sms-platform" }, onHostChosen);
  const db = knexFactory({
    client: "pg",
    connection: (() => choice.connectionConfig()) as unknown as Knex.ConnectionConfigProvider,
    pool: {
      min: 0,
      max: poolMax,
      afterCreate: (client: pg.Client, done: (error: Error | null, client: pg.Client) => void) => {
        choice.check(client).then(
          () => done(null, client),
          (error: Error) => done(error, client),
        );
      },
    },
    acquireConnectionTimeout: 10_000,
  });
  // A connection the chosen host refused (it died, or was demoted and restarted): look again before the next.
  (db.client as { pool?: { on(event: "createFail", listener: () => void): void } }).pool?.on("createFail", () => choice.forget());
  return db;
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
