// docs/OPERATIONS.md's backup and restore, run as written: scripts/ops/backup-restore-check.sh dumps a database
// while another connection keeps writing to it, restores it into an empty one and checks the copy.
// pg_dump refuses a server newer than itself. Where the installed client is older than the suite's embedded
// PostgreSQL (Debian 12: client 15, embedded server 17), the test runs against a throwaway cluster of the
// client's own major version (Debian's postgresql-NN server package), and says so.
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDb, migrateLatest } from "../../server/db/knex.js";
import { createKeyForAccount } from "../../server/operator/index.js";
import { debianServerMajors, startDebianPostgres } from "../helpers/debianPostgres.js";
import { insertDueMessages } from "../helpers/messages.js";
import { run } from "../helpers/process.js";

const script = resolve(import.meta.dirname, "../../scripts/ops/backup-restore-check.sh");
const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

function clientMajor(): number {
  try {
    return Number(sh("pg_dump", ["--version"]).match(/(\d+)/)![1]);
  } catch {
    return 0;
  }
}

interface Server {
  adminUrl: string;
  what: string;
  stop(): void;
}

/** The suite's PostgreSQL when pg_dump can dump it, else a throwaway cluster of pg_dump's own version. */
async function serverForDump(embeddedMajor: number): Promise<Server | undefined> {
  const major = clientMajor();
  if (major >= embeddedMajor) return { adminUrl: inject("pgAdminUrl"), what: `the embedded PostgreSQL ${embeddedMajor}`, stop: () => {} };
  if (!major || !debianServerMajors().includes(major)) return undefined;
  const cluster = await startDebianPostgres(major);
  return { ...cluster, what: `a throwaway PostgreSQL ${major} (pg_dump ${major} cannot dump the embedded ${embeddedMajor})` };
}

let server: Server | undefined;
beforeAll(async () => {
  const probe = createDb(inject("pgAdminUrl"), 1);
  const { rows } = await probe.raw("SHOW server_version_num");
  await probe.destroy();
  server = await serverForDump(Math.floor(Number(rows[0].server_version_num) / 10_000));
  if (server) process.stdout.write(`backup-restore test on ${server.what}\n`);
  else
    process.stderr.write(
      `backup-restore test skipped: no pg_dump able to dump the test server, and no postgresql-${clientMajor()} server package\n`,
    );
}, 60_000);
afterAll(() => server?.stop());

describe("backup and restore of a live database", () => {
  it("dumps while writes go on, restores into an empty database, and the copy checks out", { timeout: 120_000 }, async (ctx) => {
    if (!server) return ctx.skip();
    const suffix = `${process.pid}_${Date.now()}`;
    const admin = createDb(server.adminUrl, 1);
    await admin.raw(`CREATE DATABASE t_backup_src_${suffix}`);
    await admin.raw(`CREATE DATABASE t_backup_copy_${suffix}`);
    const sourceUrl = server.adminUrl.replace(/\/postgres$/, `/t_backup_src_${suffix}`);
    const copyUrl = server.adminUrl.replace(/\/postgres$/, `/t_backup_copy_${suffix}`);
    const db = createDb(sourceUrl, 2);
    const copy = createDb(copyUrl, 1);
    try {
      await migrateLatest(db);
      const { accountId } = await createKeyForAccount(db, "backup");
      await insertDueMessages(db, accountId, 500, { dueAt: () => new Date(Date.now() + 3_600_000) });

      let writing = true;
      let written = 0;
      const writer = (async () => {
        while (writing) written += (await insertDueMessages(db, accountId, 20, { dueAt: () => new Date(Date.now() + 3_600_000) })).length;
      })();
      const check = await run(script, [sourceUrl, copyUrl], {});
      writing = false;
      await writer;

      expect(check.code, check.stdout + check.stderr).toBe(0);
      expect(check.stdout).toMatch(/backup verified/);
      expect(written).toBeGreaterThan(0); // the source really was written to during the dump
      const copied = Number((await copy("messages").count({ n: "*" }))[0]!.n);
      expect(copied).toBeGreaterThanOrEqual(500);
      // A consistent snapshot: every copied message has its send job, as in the source at one instant.
      const orphans = await copy("messages").leftJoin("jobs", "jobs.id", "messages.job_id").whereNull("jobs.id").count({ n: "*" });
      expect(orphans).toEqual([{ n: 0 }]);
      expect(await copy("api_keys").count({ n: "*" })).toEqual([{ n: 1 }]);
    } finally {
      await db.destroy();
      await copy.destroy();
      await admin.raw(`DROP DATABASE IF EXISTS t_backup_src_${suffix} WITH (FORCE)`);
      await admin.raw(`DROP DATABASE IF EXISTS t_backup_copy_${suffix} WITH (FORCE)`);
      await admin.destroy();
    }
  });
});
