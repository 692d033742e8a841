// An empty database (no migrations applied), for tests of what a deploy meets: a first migrate step, an
// upgrade from an older schema, a restore. Named t_… so the next run's global setup drops one a crash left.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

export async function adminQuery(sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: inject("pgAdminUrl") });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates an empty database; returns its URL and a function that drops it. */
export async function createFreshDatabase(): Promise<{ name: string; url: string; drop: () => Promise<void> }> {
  const name = `t_${randomBytes(6).toString("hex")}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  return {
    name,
    url: inject("pgAdminUrl").replace(/\/postgres$/, `/${name}`),
    drop: async () => void (await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  };
}
