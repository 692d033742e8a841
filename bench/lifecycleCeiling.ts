// The physical reference shared by bench:limit and bench:dispatch: pgbench (PostgreSQL's own load generator,
// no Node.js in the loop) doing only the writes one message's lifecycle needs. Three transactions per script
// run, each for `k` messages:
//   1. insert the messages and their send jobs;
//   2. claim the jobs (and remove them), status `sent`, history entries, receipt rows;
//   3. status `delivered`, history entries, receipt rows.
// Messages stored and status changes are counted for reports in their statements, as the server counts them
// (db/messageCounts.ts).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureAccount } from "../server/operator/index.js";
import { COUNTED_COLUMNS, countStatusEventsSql, countStoredEventsSql, STORED_COUNTED_COLUMNS } from "../server/db/messageCounts.js";
import { sql } from "../server/db/sql.js";
import { insertWebhook } from "../server/db/webhooks.js";
import { resetData, type BenchDb } from "./lib.js";

const COUNTED = COUNTED_COLUMNS.join(", ");
// pgbench takes no parameters: the statement's few values written in as literals.
const counted = (event: "sent" | "delivered") => sql.inline(countStatusEventsSql(event === "sent" ? "sent" : "d", event, "now()"));

const script = `
BEGIN;
WITH ids AS (SELECT gen_random_uuid() AS mid, gen_random_uuid() AS jid FROM generate_series(1, :k)),
     j AS (INSERT INTO jobs (id, account_id, kind, payload, run_at, max_attempts)
           SELECT jid, :account::uuid, 'send_message', jsonb_build_object('messageId', mid), now(), 10 FROM ids),
     stored AS (INSERT INTO messages (id, account_id, job_id, recipient, sender, body, scheduled_at, segments, encoding)
                SELECT mid, :account::uuid, jid, '+14155550100', 'BENCH', 'limit benchmark', now(), 1, 'GSM-7' FROM ids
                RETURNING ${sql.inline(STORED_COUNTED_COLUMNS)})
${sql.inline(countStoredEventsSql("stored"))};
COMMIT;
BEGIN;
WITH claimed AS (DELETE FROM jobs WHERE id = ANY(ARRAY(
                   SELECT id FROM jobs WHERE state IN ('available', 'retryable') AND run_at <= now()
                    ORDER BY run_at, id LIMIT :k FOR UPDATE SKIP LOCKED))
                 RETURNING (payload->>'messageId')::uuid AS mid),
     sent AS (UPDATE messages m SET status = 'sent', sent_at = now(), provider_message_id = m.id::text
               WHERE m.id = ANY(ARRAY(SELECT mid FROM claimed)) RETURNING m.id, m.account_id, ${COUNTED}),
     k AS (${counted("sent")}),
     r AS (INSERT INTO webhook_deliveries (id, webhook_id, account_id, message_id, event, seq, body)
           SELECT gen_random_uuid(), :webhook::uuid, account_id, id, 'dlr.sent', 1, '{}' FROM sent)
SELECT coalesce(array_agg(id)::text, '{}') AS sent_ids FROM sent \\gset
COMMIT;
BEGIN;
WITH d AS (UPDATE messages SET status = 'delivered', delivered_at = now() WHERE id = ANY(:sent_ids::uuid[]) RETURNING id, account_id, ${COUNTED}),
     k AS (${counted("delivered")})
INSERT INTO webhook_deliveries (id, webhook_id, account_id, message_id, event, seq, body)
SELECT gen_random_uuid(), :webhook::uuid, account_id, id, 'dlr.delivered', 2, '{}' FROM d;
COMMIT;
`;

export function hasPgbench(): boolean {
  return spawnSync("pgbench", ["--version"]).status === 0;
}

/** Messages/s through the whole lifecycle with `clients` pgbench clients and `k` messages per transaction. */
export async function lifecycleCeiling(bench: BenchDb, o: { k: number; seconds: number; clients: number }): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "sms-limit-"));
  const file = join(dir, "lifecycle.sql");
  writeFileSync(file, script);
  await resetData(bench.db);
  const account = await ensureAccount(bench.db, "bench-limit");
  const webhook = await insertWebhook(bench.db, account.id, { name: "limit", url: "https://example.com/hook", secret: "whsec_bench" });
  process.stderr.write(`pgbench: ${o.clients} clients, ${o.k} message(s) per transaction, ${o.seconds} s…\n`);
  const out = execFileSync(
    "pgbench",
    [
      "-n",
      "-r",
      "-M",
      "prepared",
      "-c",
      String(o.clients),
      "-j",
      String(o.clients),
      "-T",
      String(o.seconds),
      "-f",
      file,
      "-D",
      `k=${o.k}`,
      "-D",
      `account=${account.id}`,
      "-D",
      `webhook=${webhook.id}`,
      bench.url,
    ],
    { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
  );
  if (process.env.BENCH_VERBOSE) process.stderr.write(out);
  const tps = Number(/tps = ([\d.]+)/.exec(out)?.[1]);
  if (!Number.isFinite(tps)) throw new Error(`could not read pgbench's output:\n${out}`);
  await resetData(bench.db);
  await bench.db("webhooks").del();
  return Math.round(tps * o.k);
}
