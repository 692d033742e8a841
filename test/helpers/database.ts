// A database per test file, cloned from the migrated template. Dropped when every test of the file passed;
// kept (name printed) when one failed, for inspection, until the next run.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, inject, onTestFailed } from "vitest";
import { createDb, type Db } from "../../server/db/knex.js";

const TEMPLATE = "sms_test_template";

export interface TestDatabase {
  name: string;
  url: string;
  db: Db;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject("pgAdminUrl") });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Call at the top level of a test file. */
export function useTestDatabase(): () => TestDatabase {
  let current: TestDatabase | undefined;
  let failed = false;
  const ready = (async () => {
    const name = `t_${randomBytes(6).toString("hex")}`;
    await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`));
    const url = inject("pgAdminUrl").replace(/\/postgres$/, `/${name}`);
    current = { name, url, db: createDb(url, 20) };
  })();
  beforeAll(() => ready);
  beforeEach(() => {
    onTestFailed(() => {
      failed = true;
    });
  });
  afterAll(async () => {
    await ready;
    await current!.db.destroy();
    if (failed) process.stderr.write(`kept test database ${current!.name} for inspection: ${current!.url}\n`);
    else await admin((c) => c.query(`DROP DATABASE ${current!.name} WITH (FORCE)`));
  });
  return () => {
    if (!current) throw new Error("test database not ready: use it inside a test or hook");
    return current;
  };
}
