// docs/OPERATIONS.md's backup and restore, run as written: scripts/ops/backup-restore-check.sh dumps a database
// while it is being written to, restores it into an empty one and checks the copy.
// pg_dump refuses a server newer than itself; where the installed client is older than the test server
// (Debian 12's postgresql-client 15 against the embedded PostgreSQL 17) the test is skipped, saying so.
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createDb } from "../../server/db/knex.js";
import { createKeyForAccount } from "../../server/domain/keysService.js";
import { adminQuery, createFreshDatabase } from "../helpers/freshDatabase.js";
import { insertDueMessages } from "../helpers/messages.js";
import { run } from "../helpers/process.js";
import { useTestDatabase } from "../helpers/database.js";

const source = useTestDatabase();
const script = resolve(import.meta.dirname, "../../scripts/ops/backup-restore-check.sh");

function clientMajor(): number {
  try {
    return Number(execFileSync("pg_dump", ["--version"], { encoding: "utf8" }).match(/(\d+)(\.\d+)?/)![1]);
  } catch {
    return 0;
  }
}
const serverMajor = Math.floor(Number((await adminQuery("SHOW server_version_num")).rows[0].server_version_num) / 10_000);
const usable = clientMajor() >= serverMajor;
if (!usable) process.stderr.write(`backup-restore test skipped: pg_dump ${clientMajor() || "(missing)"} cannot dump PostgreSQL ${serverMajor}; install postgresql-client-${serverMajor}\n`);

let target: Awaited<ReturnType<typeof createFreshDatabase>> | undefined;
afterAll(async () => target?.drop());

describe("backup and restore of a live database", () => {
  it.skipIf(!usable)("dumps while writes go on, restores into an empty database, and the copy checks out", { timeout: 120_000 }, async () => {
    const { db } = source();
    const { accountId } = await createKeyForAccount(db, "backup");
    await insertDueMessages(db, accountId, 500, { dueAt: () => new Date(Date.now() + 3_600_000) });
    target = await createFreshDatabase();

    let writing = true;
    const writer = (async () => {
      const w = createDb(source().url, 2);
      while (writing) await insertDueMessages(w, accountId, 50, { dueAt: () => new Date(Date.now() + 3_600_000) });
      await w.destroy();
    })();
    const check = await run(script, [source().url, target.url], {});
    writing = false;
    await writer;

    expect(check.code, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toMatch(/backup verified/);
    const copy = createDb(target.url, 1);
    try {
      expect(Number((await copy("messages").count({ n: "*" }))[0]!.n)).toBeGreaterThanOrEqual(500);
      expect(await copy("api_keys").where({ account_id: accountId }).count({ n: "*" })).toEqual([{ n: 1 }]);
    } finally {
      await copy.destroy();
    }
  });
});
