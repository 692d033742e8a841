// A rolling upgrade across the newest migration, with real code of both releases: "old" is this repository as
// it was just before the newest migration was added (git history, run from an export of that commit), "new"
// is the working tree. On one database:
//   old worker starts (its schema) → the new release's migrate step → the old worker sends on the new schema →
//   a new worker starts beside it, both send → the old one stops on SIGTERM → the new one sends alone.
// Every message is delivered exactly once and counted once for reports. Covered for the send path; docs/OPERATIONS.md says which parts of
// an old release a given migration breaks (for 006: an old API's POST /schedule and an old worker's campaign
// fan-out, which still write the 'scheduled' history row 006 forbids).
import { execSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKeyForAccount } from "../../server/operator/index.js";
import { createDb, type Db } from "../../server/db/knex.js";
import { migrationSource } from "../../server/db/migrations/index.js";
import { createFreshDatabase } from "../helpers/freshDatabase.js";
import { insertDueMessages } from "../helpers/messages.js";
import { submittedTwice, waitUntilSettled } from "../helpers/outcomes.js";
import { run, spawnProcess, type Spawned } from "../helpers/process.js";

const root = resolve(import.meta.dirname, "../..");
const oldTree = mkdtempSync(join(tmpdir(), "sms-old-release-"));
let database: Awaited<ReturnType<typeof createFreshDatabase>>;
let db: Db;
let newest: string;
const running: Spawned[] = [];

beforeAll(async () => {
  newest = (await migrationSource.getMigrations([])).at(-1)!;
  const git = (cmd: string) => execSync(`git ${cmd}`, { cwd: root, encoding: "utf8" }).trim();
  // -m --first-parent: a migration that came with a merge counts as added by the merge, so `added^` is main
  // just before it (without them, git skips merges and finds nothing, or the branch commit).
  const added = git(`log -m --first-parent --diff-filter=A --format=%H -1 -- server/db/migrations/${newest}.ts`);
  if (!added) throw new Error(`no commit adds ${newest} in this checkout's history: this test needs the git history (not a shallow clone)`);
  // What the server imports, as far as that commit had it (common/ came later than server/).
  const present = git(`ls-tree --name-only ${added}^`).split("\n");
  const parts = ["server", "common", "generated", "package.json"].filter((p) => present.includes(p));
  execSync(`git archive ${added}^ ${parts.join(" ")} | tar -x -C ${oldTree}`, { cwd: root });
  symlinkSync(join(root, "node_modules"), join(oldTree, "node_modules"));
  database = await createFreshDatabase();
  db = createDb(database.url, 4);
}, 60_000);
afterAll(async () => {
  for (const p of running) p.child.kill("SIGKILL");
  await db?.destroy();
  await database?.drop();
  rmSync(oldTree, { recursive: true, force: true });
});

async function startWorker(tree: string): Promise<Spawned> {
  const env = {
    DATABASE_URL: database.url,
    ROLE: "worker",
    NODE_ENV: "production",
    PROVIDER: "simulator",
    ALLOW_SIMULATOR_IN_PRODUCTION: "1",
    LOG_LEVEL: "info",
    SIMULATOR_DELIVERY_DELAY_MS: "0",
    JOB_LEASE_MS: "3000",
  };
  const proc = spawnProcess(process.execPath, ["--import", "tsx", join(tree, "server/main.ts")], env);
  running.push(proc);
  await proc.waitFor(/job runner started/, 60_000);
  return proc;
}

async function sendAndSettle(accountId: string, n: number): Promise<string[]> {
  const ids = await insertDueMessages(db, accountId, n, { dueAt: () => new Date() });
  await waitUntilSettled(db, ids, 60_000);
  expect(await db("messages").whereIn("id", ids).whereNot("status", "delivered").count({ n: "*" })).toEqual([{ n: 0 }]);
  expect(await submittedTwice(db, ids)).toEqual([]);
  return ids;
}

/** An event's count for reports: what the chore moved and what it has not moved yet. */
async function counted(accountId: string, event: string): Promise<number> {
  const { rows } = await db.raw(
    `SELECT coalesce(sum(messages), 0)::int AS n FROM (
       SELECT messages FROM message_counts WHERE account_id = :accountId AND event = :event
       UNION ALL SELECT messages FROM message_count_deltas WHERE account_id = :accountId AND event = :event) c`,
    { accountId, event },
  );
  return rows[0].n;
}

describe("rolling upgrade across the newest migration", { timeout: 180_000 }, () => {
  it("an old and a new worker share one database; nothing is lost or sent twice", async () => {
    // The old release migrates the fresh database to its own schema as it starts.
    const old = await startWorker(oldTree);
    expect(await db("knex_migrations").pluck("name")).not.toContain(newest);

    const migrate = await run("npm", ["run", "--silent", "migrate"], { DATABASE_URL: database.url });
    expect(migrate.code, migrate.stderr).toBe(0);
    expect(await db("knex_migrations").pluck("name")).toContain(newest);
    const { accountId } = await createKeyForAccount(db, "upgrade");

    await sendAndSettle(accountId, 50); // the old worker alone, on the new schema

    const fresh = await startWorker(root);
    await sendAndSettle(accountId, 200); // both

    old.child.kill("SIGTERM");
    expect(await old.exited).toBe(0);
    await sendAndSettle(accountId, 50); // the new worker alone

    fresh.child.kill("SIGTERM");
    expect(await fresh.exited).toBe(0);
    expect(old.output()).not.toMatch(/"level":50/);
    // Reports count every event once, whichever release made it (docs/REPORTS.md: 038 counts a status change
    // in its statement, the trigger counts an older release's).
    for (const event of ["accepted", "sent", "delivered"])
      expect({ event, counted: await counted(accountId, event) }).toEqual({ event, counted: 300 });
  });
});
