// npm run bench:campaign — a campaign to a group of 100,000 contacts (BENCH_CONTACTS), end to end through
// real processes: one API process, two worker processes, simulator without delay, and a local receiver for the
// receipts (sent + final status: about 200,000). Measures the time for POST /campaigns to answer, until every message
// exists, until every message is sent, until every receipt arrived; and the peak RSS of every process.
import { readFileSync } from "node:fs";
import { ensureAccount } from "../server/operator/index.js";
import { insertWebhook } from "../server/db/webhooks.js";
import { createKeyForAccount } from "../server/operator/index.js";
import { generateWebhookSecret } from "../server/domain/webhookSecrets.js";
import { machine, progress, serveProcess, startBenchDatabase, startWorkers, writeResult } from "./lib.js";
import { startReceiver } from "./receiver.js";

const N = Number(process.env.BENCH_CONTACTS ?? 100_000);
const bench = await startBenchDatabase();
const { db } = bench;
const count = async (sql: string, bindings: unknown[] = []) => Number((await db.raw(sql, bindings)).rows[0].n);
/** Peak resident set size of a process, from the kernel (VmHWM), in MiB. */
const peakRssMiB = (pid: number) => Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]) / 1024);

async function until(label: string, total: number, current: () => Promise<number>, t0: number): Promise<number> {
  const bar = progress(label, total);
  try {
    for (;;) {
      const n = await current();
      bar.update(n);
      if (n >= total) return (Date.now() - t0) / 1000;
      if (Date.now() - t0 > 900_000) throw new Error(`${label}: ${n}/${total} after 15 min`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    bar.stop();
  }
}

const receiver = await startReceiver();
try {
  const account = await ensureAccount(db, "bench-campaign");
  const { key } = await createKeyForAccount(db, "bench-campaign");
  await insertWebhook(db, account.id, { name: "bench", url: receiver.url, secret: generateWebhookSecret() });
  const [group] = await db("groups").insert({ account_id: account.id, name: "everyone" }).returning("id");
  await db.raw(
    `WITH c AS (INSERT INTO contacts (account_id, phone, first_name)
                SELECT ?::uuid, '+1415' || lpad(g::text, 7, '0'), 'Contact' || g FROM generate_series(1, ?) g RETURNING account_id, id)
     INSERT INTO contact_groups (account_id, contact_id, group_id, position) SELECT account_id, id, ?, 1 FROM c`,
    [account.id, N, group.id],
  );
  // The floor under "all messages created": PostgreSQL alone writing the rows a campaign's messages need (a
  // message and its send job each) with INSERT … SELECT from generate_series: no Node.js, no parameters, no
  // other work. Rolled back, so the run below starts from the same tables.
  const tx = await db.transaction();
  const floor = await (async () => {
    const [campaign] = await tx("campaigns")
      .insert({ account_id: account.id, name: "floor", message: "x", type: "instant", sender: "ACME", status: "sending" })
      .returning("id");
    const t = Date.now();
    await tx.raw(
      `WITH ids AS (SELECT gen_random_uuid() AS id, gen_random_uuid() AS job_id, g FROM generate_series(1, ?) g),
            j AS (INSERT INTO jobs (id, account_id, kind, payload, run_at, max_attempts)
                  SELECT job_id, ?::uuid, 'send_message', jsonb_build_object('messageId', id), now() + interval '1 day', 10 FROM ids)
       INSERT INTO messages (id, account_id, campaign_id, job_id, recipient, sender, body, scheduled_at, segments, encoding)
       SELECT id, ?, ?, job_id, '+1415' || lpad(g::text, 7, '0'), 'ACME', 'Hi Contact' || g || ', our sale starts today.',
              now() + interval '1 day', 1, 'GSM-7' FROM ids`,
      [N, account.id, account.id, campaign.id],
    );
    return (Date.now() - t) / 1000;
  })().finally(() => tx.rollback().catch(() => undefined));
  process.stderr.write(`floor: ${N} messages and their jobs written by PostgreSQL alone in ${floor} s\n`);
  const api = await serveProcess("server/main.ts", bench.url, { ROLE: "api", RATE_LIMIT_PER_SECOND: "0", RATE_LIMIT_BULK_PER_SECOND: "0" });
  const workers = await startWorkers(2, bench.url, { WEBHOOK_ALLOW_PRIVATE: "1" });

  const t0 = Date.now();
  const response = await fetch(`${api.url}/api/v1/campaigns`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({
      name: "bench",
      message: "Hi {{firstName}}, our sale starts today.",
      type: "instant",
      groupId: group.id,
      from: "ACME",
      ...(process.env.BENCH_CAMPAIGN_PRIORITY ? { priority: process.env.BENCH_CAMPAIGN_PRIORITY } : {}),
    }),
  });
  const answerMs = Date.now() - t0;
  if (response.status !== 201) throw new Error(`POST /campaigns answered ${response.status}: ${await response.text()}`);
  const { campaignId } = (await response.json()) as { campaignId: string };

  const created = await until(
    "messages created",
    N,
    () => count("SELECT count(*) AS n FROM messages WHERE campaign_id = ?", [campaignId]),
    t0,
  );
  // Handed to the provider (the simulator refuses a few numbers by design: those are `failed` at once).
  const sent = await until(
    "messages sent",
    N,
    () => count("SELECT count(*) AS n FROM messages WHERE campaign_id = ? AND status NOT IN ('scheduled', 'sending')", [campaignId]),
    t0,
  );
  // Then until the engine is idle (every report applied, every receipt posted): a few simulator numbers never
  // get a final report, so "every message final" is not the end.
  await until(
    "engine idle",
    1,
    async () => ((await count("SELECT count(*) AS n FROM jobs WHERE state NOT IN ('discarded', 'cancelled')")) === 0 ? 1 : 0),
    t0,
  );
  const expectedReceipts = await count("SELECT count(*) AS n FROM webhook_deliveries");
  const receipts = await until("receipts received", expectedReceipts, async () => receiver.received, t0);
  const rss = {
    api: peakRssMiB(api.child.pid!),
    workers: workers.map((w) => peakRssMiB(w.child.pid!)),
    bench: Math.round(process.resourceUsage().maxRSS / 1024),
  };
  api.child.kill("SIGTERM");
  await Promise.all(workers.map((w) => w.stop()));
  writeResult("campaign", {
    machine: await machine(db),
    contacts: N,
    workers: 2,
    answerMs,
    receipts: expectedReceipts,
    secondsUntil: { allMessagesCreated: created, allSent: sent, allReceiptsReceived: receipts },
    floorSecondsToCreate: floor,
    peakRssMiB: rss,
  });
} finally {
  receiver.close();
  await bench.stop();
}
