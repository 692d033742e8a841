import { startDebianPostgres } from "../test/helpers/debianPostgres.js";
import { createDb, migrateLatest } from "../server/db/knex.js";
const s = await startDebianPostgres(15, { jit: "on" });
const db = createDb(s.adminUrl, 1);
try {
  await migrateLatest(db);
  await db.transaction(async (tx) => {
    await tx.raw("SET LOCAL enable_sort = off; SET LOCAL enable_bitmapscan = off");
    const r = await tx.raw(`EXPLAIN UPDATE jobs j SET account_id = CASE WHEN j.account_id IS NULL THEN job_account_of(j.kind, j.payload) ELSE j.account_id END WHERE j.id = ANY(ARRAY(SELECT id FROM jobs LIMIT 10))`);
    console.log(r.rows.map((x: any) => x["QUERY PLAN"]).join("\n"));
    const r2 = await tx.raw(`EXPLAIN SELECT job_account_of('provider_report', '{"providerMessageId":"x"}')`);
    console.log(r2.rows.map((x: any) => x["QUERY PLAN"]).join("\n"));
  });
} finally { await db.destroy(); s.stop(); }
