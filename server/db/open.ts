import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import { runningEmbeddedUrl, startEmbeddedPostgres } from "./embedded.js";
import { createDb, migrateLatest, type Db } from "./knex.js";

export interface OpenDatabase {
  db: Db;
  url: string;
  close(): Promise<void>;
}

/**
 * Connects to DATABASE_URL; without it, to the embedded PostgreSQL under DATA_DIR (sharing the one a running
 * server started, or starting it), and applies pending migrations.
 */
export async function openDatabase(config: Config, log: Logger, opts: { shareRunning?: boolean } = {}): Promise<OpenDatabase> {
  let url = config.databaseUrl ?? (opts.shareRunning ? runningEmbeddedUrl(config.dataDir) : undefined);
  const embedded = url ? undefined : await startEmbeddedPostgres({ dataDir: config.dataDir, log });
  url ??= embedded!.url;
  const db = createDb(url, config.dbPoolMax, (host, previous) =>
    log.info(
      { host: `${host.host}:${host.port}`, previous: previous && `${previous.host}:${previous.port}` },
      previous ? "database host changed" : "database host chosen",
    ),
  );
  try {
    const applied = await migrateLatest(db);
    if (applied.length) log.info({ applied }, "migrations applied");
  } catch (error) {
    await db.destroy();
    await embedded?.stop();
    throw error;
  }
  return {
    db,
    url,
    async close() {
      await db.destroy();
      await embedded?.stop();
    },
  };
}
