// On a stock PostgreSQL (Debian's server package: JIT on, jit_above_cost at its default), the delivery path
// must plan every statement at its real cost. A claim that pinned its plan with `SET enable_sort = off` (a
// version since dropped) costed a lookup planned inside it near 10^10, past jit_above_cost, so every claim compiled its query with LLVM (~120 ms each): 300
// messages took 35 s to be delivered instead of 3.5 s (each claim of a report queued without its account). The
// embedded server the rest of the suite runs on ships
// no JIT library, so only this file can see it. It counts what pg_stat_statements says was JIT-compiled.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureAccount } from "../../server/operator/index.js";
import { JOBS_CHANNEL } from "../../server/db/jobs/index.js";
import { createDb, migrateLatest, type Db } from "../../server/db/knex.js";
import { insertWebhook } from "../../server/db/webhooks.js";
import { generateWebhookSecret } from "../../server/domain/webhookSecrets.js";
import { debianServerHasJit, debianServerMajors, startDebianPostgres, type DebianPostgres } from "../helpers/debianPostgres.js";
import { insertDueMessages } from "../helpers/messages.js";
import { spawnWorkerProcess, type Spawned } from "../helpers/process.js";
import { startReceiver, type Receiver } from "../helpers/receiver.js";
import { systemPackagePresent } from "../helpers/systemPackage.js";
import { waitUntil } from "../helpers/wait.js";

const major = debianServerMajors().find(debianServerHasJit) ?? debianServerMajors()[0] ?? 15;
const present = systemPackagePresent({
  neededBy: "the stock-PostgreSQL (JIT) tests",
  file: `/usr/lib/postgresql/${major}/lib/llvmjit.so`,
  debianPackage: `postgresql-${major}`,
});

let server: DebianPostgres | undefined;
let db: Db;
let receiver: Receiver;
let worker: Spawned | undefined;

beforeAll(async () => {
  if (!present) return;
  server = await startDebianPostgres(major, {
    jit: "on",
    shared_preload_libraries: "pg_stat_statements",
    "pg_stat_statements.track": "all",
  });
  db = createDb(server.adminUrl, 4);
  await migrateLatest(db);
  await db.raw("CREATE EXTENSION pg_stat_statements");
  receiver = await startReceiver();
}, 120_000);
afterAll(async () => {
  worker?.child.kill("SIGKILL");
  await receiver?.close();
  await db?.destroy();
  server?.stop();
});

describe.skipIf(!present)(`on Debian's PostgreSQL with JIT on`, () => {
  it("300 messages are sent, delivered and their receipts posted without a statement compiled by JIT", { timeout: 120_000 }, async () => {
    const { rows } = await db.raw("SHOW jit");
    expect(rows[0].jit).toBe("on");
    const accountId = (await ensureAccount(db, "stock")).id;
    await insertWebhook(db, accountId, { name: "r", url: receiver.url, secret: generateWebhookSecret() });
    await db.raw("SELECT pg_stat_statements_reset()");

    const started = Date.now();
    const ids = await insertDueMessages(db, accountId, 300, { dueAt: () => new Date() });
    const spawned = spawnWorkerProcess(server!.adminUrl, { SIMULATOR_DELIVERY_DELAY_MS: "0", WEBHOOK_ALLOW_PRIVATE: "1" });
    worker = spawned.proc;
    await spawned.ready;
    await waitUntil(
      "every message delivered",
      async () => Number((await db("messages").whereIn("id", ids).where({ status: "delivered" }).count({ n: "*" }))[0]!.n) === 300,
      90_000,
    );
    await receiver.waitFor("both receipts of every message", (all) => all.length >= 600, 60_000);
    process.stdout.write(
      `stock PostgreSQL ${major} with JIT: 300 messages delivered and 600 receipts posted in ${Date.now() - started} ms\n`,
    );

    // Reports queued without an account (by the previous release, or an unmatched receipt resolved later): the
    // claim looks their account up (job_account_of), the statement such planner settings made JIT-compile.
    await db.raw(
      `INSERT INTO jobs (id, kind, payload, run_at, max_attempts)
       SELECT gen_random_uuid(), 'provider_report', jsonb_build_object('providerMessageId', provider_message_id, 'status', 'delivered'), now(), 10
         FROM messages WHERE id = ANY(?::uuid[])`,
      [ids.slice(0, 100)],
    );
    await db.raw(`SELECT pg_notify(?, '')`, [JOBS_CHANNEL]);
    await waitUntil(
      "the reports without an account claimed and applied",
      async () => Number((await db("jobs").where({ kind: "provider_report" }).count({ n: "*" }))[0]!.n) === 0,
      60_000,
    );

    const compiled = await db.raw<{ rows: { query: string; calls: string; jit_functions: string }[] }>(
      `SELECT left(query, 120) AS query, calls, jit_functions FROM pg_stat_statements WHERE jit_functions > 0 ORDER BY jit_functions DESC`,
    );
    expect(compiled.rows).toEqual([]);
  });
});
