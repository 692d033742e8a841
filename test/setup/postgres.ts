// One embedded PostgreSQL for the whole test run (kept in .test-data/ so later runs skip initdb), with a
// migrated template database. Each test file clones the template into a database of its own (see
// test/helpers/database.ts), so files run in parallel without sharing state.
// TEST_PG_ADMIN_URL (a superuser's URL to the `postgres` database of another server) runs the suite on that
// server instead: CI runs the engine tests so on Debian's stock PostgreSQL with JIT on (scripts/ci/stock-postgres.sh).
import type { TestProject } from "vitest/node";
import pg from "pg";
import { startEmbeddedPostgres } from "../../server/db/embedded.js";
import { createDb, migrateLatest } from "../../server/db/knex.js";
import { createLogger } from "../../server/logger.js";

declare module "vitest" {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

export const TEMPLATE = "sms_test_template";

export default async function setup(project: TestProject) {
  const log = createLogger("warn");
  const external = process.env.TEST_PG_ADMIN_URL;
  const server = external
    ? { url: external, stop: async () => {} }
    : await startEmbeddedPostgres({
        dataDir: ".test-data",
        log,
        announce: false,
        // Throwaway data: durability off for speed.
        settings: { fsync: "off", synchronous_commit: "off", full_page_writes: "off", max_connections: "300" },
      });
  const adminUrl = external ?? server.url.replace(/\/sms$/, "/postgres");
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const { rows } = await admin.query("SELECT datname FROM pg_database WHERE datname LIKE 't\\_%'");
  if (rows.length) process.stderr.write(`dropping ${rows.length} test databases kept by the previous run\n`);
  for (const { datname } of rows) await admin.query(`DROP DATABASE "${datname}" WITH (FORCE)`);
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${TEMPLATE}`);
  await admin.end();

  const template = createDb(adminUrl.replace(/\/postgres$/, `/${TEMPLATE}`));
  await migrateLatest(template);
  await template.destroy();

  project.provide("pgAdminUrl", adminUrl);
  return async () => {
    await server.stop();
  };
}
