// DATABASE_READ_URL: reports and exports read from a standby (Debian's PostgreSQL, a streaming replica made with
// pg_basebackup), everything else from the primary. The report and the export answer what the primary holds
// once the standby has replayed it, and were read there (the API holds connections to the standby only after
// them); with the standby stopped they answer 503 with Retry-After while every other operation still works.
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../server/db/embedded.js";
import { createDb } from "../../server/db/knex.js";
import { createKeyForAccount } from "../../server/operator/index.js";
import { debianStandbyAvailable, startDebianPair, type DebianPostgres } from "../helpers/debianPostgres.js";
import { insertDueMessages } from "../helpers/messages.js";
import { spawnProcess, type Spawned } from "../helpers/process.js";
import { waitUntil } from "../helpers/wait.js";

const { major, available } = debianStandbyAvailable("the read standby test");

const clusters: DebianPostgres[] = [];
let api: Spawned | undefined;
afterAll(async () => {
  if (api?.child.exitCode === null) api.child.kill("SIGKILL");
  await api?.exited;
  for (const c of clusters) c.stop();
});

/** The API's connections to a cluster's database `app` (the test's own have no application name). */
async function apiConnections(adminUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = 'app' AND application_name = 'sms-platform'",
    );
    return rows[0]!.n;
  } finally {
    await client.end();
  }
}

describe.runIf(available)("DATABASE_READ_URL", { timeout: 120_000 }, () => {
  it("reads reports and exports from the standby, and nothing else", async () => {
    const { primary, standby } = await startDebianPair(major);
    clusters.push(primary, standby);
    const app = (url: string) => url.replace(/\/postgres$/, "/app");

    const port = await freePort();
    api = spawnProcess("node", ["--import", "tsx", "server/main.ts"], {
      ROLE: "api",
      PORT: String(port),
      DATABASE_URL: app(primary.adminUrl),
      DATABASE_READ_URL: app(standby.adminUrl),
      LOG_LEVEL: "info",
    });
    await api.waitFor(/listening on/, 60_000);
    const db = createDb(app(primary.adminUrl), 2);
    const { key, accountId } = await createKeyForAccount(db, "reader");
    await insertDueMessages(db, accountId, 30, { dueAt: () => new Date(Date.now() + 3_600_000), body: "later" });
    await db.destroy();
    const base = `http://127.0.0.1:${port}/api/v1`;
    const get = (path: string) => fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${key}` } });

    // Before the reads, the API holds no connection to the standby.
    expect(await apiConnections(app(standby.adminUrl))).toBe(0);
    // The standby replays what the primary committed: the report and the export show the 30 messages.
    const report = await waitUntil("the report from the standby", async () => {
      const body = (await (await get("/reports/messages?groupBy=day")).json()) as { rows: { accepted: number }[] };
      return body.rows.reduce((n, r) => n + r.accepted, 0) === 30 && body;
    });
    expect(report.rows.length).toBeGreaterThan(0);
    const csv = await (await get("/exports/messages?format=csv")).text();
    expect(csv.trim().split("\n")).toHaveLength(31);
    expect(await apiConnections(app(standby.adminUrl))).toBeGreaterThan(0);

    // The standby stopped: reports and exports answer 503 with Retry-After; the rest works from the primary.
    standby.kill();
    const down = await get("/reports/messages?groupBy=day");
    expect(down.status).toBe(503);
    expect(down.headers.get("retry-after")).toBe("1");
    expect((await get("/messages?limit=5")).status).toBe(200);
    expect((await get("/key")).status).toBe(200);
  });
});
