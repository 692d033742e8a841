// npm run schema: migrates a scratch database on a throwaway embedded PostgreSQL and writes what it holds to
// server/db/schema.sql (server/db/schemaSnapshot.ts says why the file exists).
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { destination } from "pino";
import { startEmbeddedPostgres } from "../server/db/embedded.js";
import { createDb, migrateLatest } from "../server/db/knex.js";
import { readSchemaSnapshot } from "../server/db/schemaSnapshot.js";
import { createLogger } from "../server/logger.js";

const log = createLogger(process.env.LOG_LEVEL ?? "warn", destination(2));
const dataDir = mkdtempSync(join(tmpdir(), "sms-schema-"));
chmodSync(dataDir, 0o755); // run as root, the embedded server runs as "postgres", who must reach it
const server = await startEmbeddedPostgres({ dataDir, log, announce: false, settings: { fsync: "off" } });
const db = createDb(server.url, 2);
try {
  await migrateLatest(db);
  const path = new URL("../server/db/schema.sql", import.meta.url);
  writeFileSync(path, await readSchemaSnapshot(db));
  log.warn({ path: path.pathname }, "schema written");
} finally {
  await db.destroy();
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
