// Chaos: the PostgreSQL server itself is stopped mid-run and started again. While it is down the API answers
// 503 problem documents at once (no hang, no 500); afterwards the worker reconnects (pool and LISTEN) and the
// run completes with nothing lost and nothing sent twice.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort, startEmbeddedPostgres, type EmbeddedDatabase } from "../../server/db/embedded.js";
import { createDb, migrateLatest } from "../../server/db/knex.js";
import { countSubmissionsByMessage } from "../../server/db/simulatorSubmissions.js";
import { createKeyForAccount } from "../../server/operator/index.js";
import { createLogger } from "../../server/logger.js";
import { insertDueMessages } from "../helpers/messages.js";
import { submittedTwice, waitUntilSettled } from "../helpers/outcomes.js";
import { spawnProcess } from "../helpers/process.js";
import { waitUntil } from "../helpers/wait.js";

const dir = mkdtempSync(join(tmpdir(), "sms-restart-"));
chmodSync(dir, 0o755);
let pgServer: EmbeddedDatabase | undefined;
afterAll(async () => {
  await pgServer?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("PostgreSQL restarted mid-run", { timeout: 180_000 }, () => {
  it("answers 503 while it is down, then reconnects and completes the run", async () => {
    const log = createLogger("silent");
    const pgPort = await freePort();
    const start = () => startEmbeddedPostgres({ dataDir: dir, log, announce: false, port: pgPort });
    pgServer = await start();
    const setup = createDb(pgServer.url, 2);
    await migrateLatest(setup);
    const { key, accountId } = await createKeyForAccount(setup, "restart");
    await setup.destroy();

    const port = await freePort();
    const app = spawnProcess("node", ["--import", "tsx", "server/main.ts"], {
      DATABASE_URL: pgServer.url,
      PORT: String(port),
      LOG_LEVEL: "warn",
      SIMULATOR_DELIVERY_DELAY_MS: "50",
      RATE_LIMIT_PER_SECOND: "0",
      // A send whose outcome the outage made unknown and no report resolves fails after this (default 10 min).
      SEND_OUTCOME_RESOLVE_MS: "10000",
    });
    const base = `http://127.0.0.1:${port}`;
    await waitUntil(
      "API up",
      () =>
        fetch(`${base}/readyz`).then(
          (r) => r.ok,
          () => false,
        ),
      30_000,
      100,
    );
    // 200 messages due while the database will be down, 200 due after it is back. Stored in one statement
    // (campaign fan-out's) rather than 400 API calls, which on a loaded machine can outlast any lead time.
    const t0 = Date.now();
    const store = createDb(pgServer.url, 2);
    const ids = await insertDueMessages(store, accountId, 400, {
      dueAt: (i) => new Date(t0 + (i < 200 ? 2_000 : 12_000)),
      to: (i) => `+1415557${2000 + i}`,
      body: "restart",
    });
    await store.destroy();

    await pgServer.stop();
    const down = await fetch(`${base}/api/v1/messages`, { headers: { Authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(5000) });
    expect(down.status).toBe(503);
    expect(down.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(((await down.json()) as { code: string }).code).toBe("service_unavailable");
    expect((await fetch(`${base}/readyz`)).status).toBe(503);
    await new Promise((r) => setTimeout(r, 3000)); // stay down a while: the worker's retries run against nothing
    pgServer = await start();
    // Reconnection: from the database accepting connections again until the API answers a query (the pool
    // opens a new connection on demand) — printed for docs/RELIABILITY.md.
    const back = Date.now();
    await waitUntil(
      "API answering again",
      () =>
        fetch(`${base}/readyz`).then(
          (r) => r.ok,
          () => false,
        ),
      30_000,
      20,
    );
    process.stderr.write(`postgres-restart: API answering ${Date.now() - back} ms after PostgreSQL was back\n`);

    const db = createDb(pgServer.url, 2);
    try {
      await waitUntilSettled(db, ids, 90_000);
      expect(await submittedTwice(db, ids)).toEqual([]);
      const submitted = await countSubmissionsByMessage(db);
      expect(ids.filter((id) => !submitted.has(id))).toEqual([]);
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
    } finally {
      await db.destroy();
    }
    app.child.kill("SIGTERM");
    expect(await app.exited).toBe(0);
  });
});
