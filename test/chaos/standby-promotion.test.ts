// Chaos: a failover done by hand on Debian's PostgreSQL (a primary and a synchronous standby made with
// pg_basebackup), the processes given one DATABASE_URL with three hosts in libpq's form: a dead one, the standby
// and the primary, with target_session_attrs=read-write. Migrations, an API and two workers find the primary;
// the primary is SIGKILLed mid-run and the standby promoted; without a restart they find the new primary. Every
// message stored or answered 201 is final, none handed to the provider twice, every receipt posted, and the API
// answered nothing but 201 and 503 meanwhile. The pg_auto_failover formation's own test is ha-failover.test.ts.
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../server/db/embedded.js";
import { createDb } from "../../server/db/knex.js";
import { insertWebhook } from "../../server/db/webhooks.js";
import { generateWebhookSecret } from "../../server/domain/webhookSecrets.js";
import { createKeyForAccount } from "../../server/operator/index.js";
import { debianStandbyAvailable, startDebianPair, type DebianPostgres } from "../helpers/debianPostgres.js";
import { insertDueMessages } from "../helpers/messages.js";
import { submittedTwice, waitUntilSettled } from "../helpers/outcomes.js";
import { run, spawnProcess, type Spawned } from "../helpers/process.js";
import { startReceiver, type Receiver } from "../helpers/receiver.js";
import { waitUntil } from "../helpers/wait.js";

const { major, available } = debianStandbyAvailable("the failover tests");

const clusters: DebianPostgres[] = [];
const processes: Spawned[] = [];
let receiver: Receiver | undefined;
afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null) p.child.kill("SIGKILL");
  await Promise.all(processes.map((p) => p.exited));
  await receiver?.close();
  for (const c of clusters) c.stop();
});

describe.runIf(available)("the primary killed and a standby promoted", { timeout: 240_000 }, () => {
  it("every process finds the new primary without a restart; nothing lost, nothing twice, only 201 and 503", async () => {
    const { primary, standby } = await startDebianPair(major, { synchronous: true });
    clusters.push(primary, standby);
    const dead = await freePort();
    const url = `postgres://postgres@127.0.0.1:${dead},127.0.0.1:${standby.port},127.0.0.1:${primary.port}/app?target_session_attrs=read-write`;

    // The command line: migrations reach the primary (the dead host refuses, the standby is read-only).
    const migrate = await run("node", ["--import", "tsx", "scripts/migrate.ts"], { DATABASE_URL: url, LOG_LEVEL: "info" });
    expect(migrate.stderr + migrate.stdout).toContain("migrations are current");
    expect(migrate.code).toBe(0);

    const db = createDb(url, 4);
    const { key, accountId } = await createKeyForAccount(db, "failover");
    receiver = await startReceiver();
    await insertWebhook(db, accountId, { name: "failover", url: receiver.url, secret: generateWebhookSecret() });

    const common = {
      DATABASE_URL: url,
      LOG_LEVEL: "info",
      WEBHOOK_ALLOW_PRIVATE: "1",
      JOB_LEASE_MS: "3000",
      SIMULATOR_DELIVERY_DELAY_MS: "50",
      WEBHOOK_RETRY_BASE_MS: "200",
      SEND_OUTCOME_RESOLVE_MS: "20000",
      RATE_LIMIT_PER_SECOND: "0",
    };
    const port = await freePort();
    const api = spawnProcess("node", ["--import", "tsx", "server/main.ts"], { ...common, ROLE: "api", PORT: String(port) });
    const workers = [0, 1].map(() => spawnProcess("node", ["--import", "tsx", "server/main.ts"], { ...common, ROLE: "worker" }));
    processes.push(api, ...workers);
    await Promise.all([api.waitFor(/listening on/, 60_000), ...workers.map((w) => w.waitFor(/job runner started/, 60_000))]);
    const base = `http://127.0.0.1:${port}`;

    // 600 messages due over 6 s from 1 s on, and POST /messages from two clients all along.
    const t0 = Date.now() + 1000;
    const stored = await insertDueMessages(db, accountId, 600, { dueAt: (i) => new Date(t0 + i * 10), body: "failover" });
    await db.destroy();
    const statuses = new Map<number, number>();
    const accepted: string[] = [];
    let posting = true;
    let retryAfterMissing = 0;
    let n = 0;
    const post = async () => {
      while (posting) {
        const i = n++;
        const res = await fetch(`${base}/api/v1/messages`, {
          method: "POST",
          headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
          body: JSON.stringify({ to: `+1415558${String(1000 + (i % 9000))}`, from: "ACME", body: `posted ${i}` }),
          signal: AbortSignal.timeout(15_000),
        }).catch(() => undefined);
        const status = res?.status ?? 0;
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status === 201) accepted.push(((await res!.json()) as { messageId: string }).messageId);
        else await res?.body?.cancel();
        if (status === 503 && !res!.headers.get("retry-after")) retryAfterMissing++;
        await new Promise((r) => setTimeout(r, 40));
      }
    };
    const posters = Promise.all([post(), post()]);

    // Kill the primary while sends are under way, then promote the standby (what a monitor does).
    const watch = createDb(primary.adminUrl.replace(/\/postgres$/, "/app"), 1);
    await waitUntil(
      "sends under way",
      async () => Number((await watch("simulator_submissions").count({ n: "*" }))[0]!.n) >= 150,
      60_000,
      50,
    );
    await watch.destroy();
    primary.kill();
    const killedAt = Date.now();
    // A monitor takes a few seconds to decide the primary is gone: the API answers 503 meanwhile.
    await new Promise((r) => setTimeout(r, 3000));
    standby.promote();
    const promotedAt = Date.now();
    const after = createDb(standby.adminUrl.replace(/\/postgres$/, "/app"), 2);
    const submissions = async () => Number((await after("simulator_submissions").count({ n: "*" }))[0]!.n);
    const atPromotion = await submissions();
    await waitUntil("sends resumed on the new primary", async () => (await submissions()) > atPromotion + 20, 60_000, 50);
    const resumedMs = Date.now() - promotedAt;
    await new Promise((r) => setTimeout(r, 2000)); // some POSTs after the failover too
    posting = false;
    await posters;

    try {
      const ids = [...stored, ...accepted];
      await waitUntilSettled(after, ids, 120_000);
      expect(await submittedTwice(after, ids)).toEqual([]);
      const rows = await after("messages").whereIn("id", ids).select("id", "status", "error_code");
      expect(rows).toHaveLength(ids.length);
      for (const r of rows) if (r.status === "failed") expect(r.error_code).toBe("send_outcome_unknown");
      // The API answered 201 or 503 (a request cut by the failover), never a 500; the client never hung.
      expect([...statuses.keys()].filter((s) => s !== 201 && s !== 503)).toEqual([]);
      expect(retryAfterMissing).toBe(0);
      expect(accepted.length).toBeGreaterThan(0);
      // Every receipt the deliveries log holds reached the receiver.
      const expected = await after("webhook_deliveries").whereIn("message_id", ids).pluck("id");
      await receiver.waitFor("every receipt", (all) => new Set(all.map((r) => r.headers["x-webhook-id"])).size >= expected.length, 120_000);
      const received = new Set(receiver.received.map((r) => r.headers["x-webhook-id"] as string));
      expect(expected.filter((id: string) => !received.has(id))).toEqual([]);
      // Each process said where it went.
      for (const p of [api, ...workers]) expect(p.output()).toContain("database host changed");
      process.stderr.write(
        `standby-promotion: sends resumed ${resumedMs} ms after the promotion (${promotedAt - killedAt} ms to promote); ` +
          `POST /messages: ${JSON.stringify(Object.fromEntries(statuses))}\n`,
      );
    } finally {
      await after.destroy();
    }
    for (const p of processes) p.child.kill("SIGTERM");
    for (const p of processes) expect(await p.exited).toBe(0);
  });
});
