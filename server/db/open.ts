import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import { runningEmbeddedUrl, startEmbeddedPostgres } from "./embedded.js";
import type { HostPort } from "./hosts.js";
import { createDb, migrateLatest, type Db } from "./knex.js";

export interface OpenDatabase {
  db: Db;
  /** DATABASE_READ_URL's pool (reports and exports read from a standby), when it is set. */
  readDb: Db | undefined;
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
  const hostLog = (pool: string) => (host: HostPort, previous?: HostPort) =>
    log.info(
      { pool, host: `${host.host}:${host.port}`, previous: previous && `${previous.host}:${previous.port}` },
      previous ? "database host changed" : "database host chosen",
    );
  const db = createDb(url, config.dbPoolMax, hostLog("primary"));
  try {
    const applied = await migrateLatest(db);
    if (applied.length) log.info({ applied }, "migrations applied");
  } catch (error) {
    await db.destroy();
    await embedded?.stop();
    throw error;
  }
  // No migrations there: a standby replays the primary's. A pool of its own, so a slow export never takes a
  // connection the sends need.
  const readDb = config.databaseReadUrl ? createDb(config.databaseReadUrl, config.dbPoolMax, hostLog("read")) : undefined;
  return {
    db,
    readDb,
    url,
    async close() {
      await readDb?.destroy();
      await db.destroy();
      await embedded?.stop();
    },
  };
}
