// The failover run shared by the chaos test (test/chaos/ha-failover.test.ts) and bench:failover: a
// pg_auto_failover formation; an API and two workers on its DATABASE_URL; Net::SMPP's SMSC (smsc-peer.pl) as
// the carrier; a webhook receiver; a 2,000-recipient campaign and POST /messages at 50/s, each POST with an
// Idempotency-Key and sent again on a 503 as its Retry-After says; the primary's PostgreSQL and its keeper
// SIGKILLed mid-run. It returns what happened; the caller judges it.
import { spawn, type ChildProcess } from "node:child_process";
import { freePort } from "../../server/db/embedded.js";
import { createDb, type Db } from "../../server/db/knex.js";
import { insertWebhook } from "../../server/db/webhooks.js";
import { generateWebhookSecret } from "../../server/domain/webhookSecrets.js";
import { createKeyForAccount } from "../../server/operator/index.js";
import { startFormation, type Formation } from "./haFormation.js";
import { waitUntilSettled } from "./outcomes.js";
import { run, spawnProcess, type Spawned } from "./process.js";
import { startReceiver, type Receiver } from "./receiver.js";
import { waitUntil } from "./wait.js";

export const CAMPAIGN_SIZE = 2000;
const POSTS_PER_SECOND = 50;

export interface FailoverRun {
  /** Every message the API accepted (the campaign's and each POST answered 201), and their destinations. */
  ids: string[];
  destinations: string[];
  /** Destinations the carrier received a submit_sm for, with how many times. */
  carrierSubmits: Map<string, number>;
  /** Status of every POST /messages answer (a retried POST counts each answer), 0 for no answer. */
  statuses: Map<number, number>;
  /** Why a POST got no answer (status 0), each reason once. */
  noAnswer: Set<string>;
  /** 503 answers without Retry-After. */
  retryAfterMissing: number;
  /** POSTs that got no 201 after their retries (should be none). */
  postsAbandoned: number;
  /** ms from the kill until the monitor showed the other node taking writes, and until the carrier got a submit again. */
  promotedAfterMs: number;
  resumedAfterMs: number;
  /** Submits per second at the carrier in the 3 s before the kill and the 3 s after sends resumed. */
  rateBefore: number;
  rateAfter: number;
  /** Webhook deliveries stored for the messages, and those the receiver never got. */
  receiptsStored: number;
  receiptsMissing: string[];
  /** Messages not final when the run gave up waiting (should be none), and the statuses of all. */
  unsettled: number;
  finalStatuses: Record<string, number>;
  /** The API's error log lines (a 500 would be logged there). */
  apiErrors: string[];
  /** The formation's PostgreSQL version. */
  serverVersion: string;
  /** Output of each process, for a failure's message. */
  outputs: () => string;
}

/** Starts everything, runs the failover, waits for the outcome and stops everything. */
export async function runFailover(log: (line: string) => void = () => undefined): Promise<FailoverRun> {
  const cleanup: (() => Promise<void> | void)[] = [];
  const seen = { outputs: () => "" };
  try {
    return await failover(cleanup, log, seen);
  } catch (error) {
    throw new Error(`${String(error)}\n${seen.outputs()}`, { cause: error });
  } finally {
    for (const step of cleanup.reverse()) await step();
  }
}

async function failover(
  cleanup: (() => Promise<void> | void)[],
  log: (line: string) => void,
  seen: { outputs: () => string },
): Promise<FailoverRun> {
  const formation: Formation = await startFormation();
  cleanup.push(() => formation.stop());
  log(`formation up: ${formation.url}`);
  const migrate = await run("node", ["--import", "tsx", "scripts/migrate.ts"], { DATABASE_URL: formation.url, LOG_LEVEL: "warn" });
  if (migrate.code !== 0) throw new Error(`npm run migrate failed on the formation:\n${migrate.stderr}`);

  const db: Db = createDb(formation.url, 4);
  cleanup.push(() => db.destroy());
  const { key, accountId } = await createKeyForAccount(db, "ha");
  const receiver: Receiver = await startReceiver();
  cleanup.push(() => receiver.close());
  await insertWebhook(db, accountId, { name: "ha", url: receiver.url, secret: generateWebhookSecret() });

  // The carrier: one submit_sm logged per line, a receipt for each 300 ms later.
  const submitTimes: number[] = [];
  let peerLog = "";
  const peer: ChildProcess = spawn("perl", ["test/helpers/smsc-peer.pl", "300"], { stdio: ["ignore", "pipe", "inherit"] });
  cleanup.push(() => void peer.kill("SIGKILL"));
  peer.stdout!.on("data", (chunk: Buffer) => {
    const text = chunk.toString();
    peerLog += text;
    for (const _ of text.matchAll(/^SUBMIT /gm)) submitTimes.push(Date.now());
  });
  const smscPort = Number((await waitUntil("the peer listening", async () => /LISTENING (\d+)/.exec(peerLog)))[1]);

  const common = {
    DATABASE_URL: formation.url,
    LOG_LEVEL: "info",
    WEBHOOK_ALLOW_PRIVATE: "1",
    WEBHOOK_RETRY_BASE_MS: "500",
    JOB_LEASE_MS: "5000",
    RATE_LIMIT_PER_SECOND: "0",
    // The first process to start records the deployment's default connector: the API says the same.
    PROVIDER: "smpp",
    SMPP_URL: `smpp://ha:secret@127.0.0.1:${smscPort}`,
  };
  const processes: Spawned[] = [];
  cleanup.push(async () => {
    for (const p of processes) if (p.child.exitCode === null) p.child.kill("SIGTERM");
    await Promise.all(processes.map((p) => Promise.race([p.exited, new Promise((r) => setTimeout(r, 10_000))])));
    for (const p of processes) if (p.child.exitCode === null) p.child.kill("SIGKILL");
  });
  seen.outputs = () =>
    `carrier: ${peerLog.slice(-2000)}\n` +
    processes.map((p) => `${p.output().slice(0, 3000)}\n…\n${p.output().slice(-3000)}`).join("\n---\n");
  const port = await freePort();
  const api = spawnProcess("node", ["--import", "tsx", "server/main.ts"], { ...common, ROLE: "api", PORT: String(port) });
  processes.push(api);
  for (let i = 0; i < 2; i++) {
    processes.push(
      spawnProcess("node", ["--import", "tsx", "server/main.ts"], {
        ...common,
        ROLE: "worker",
        SMPP_MAX_PER_SECOND: "200",
        SMPP_RESPONSE_TIMEOUT_MS: "2000",
        // Every submit the carrier accepted is receipted within a second: an unknown outcome still unresolved
        // after this was never received (claimed by a worker whose database went away before it wrote).
        SEND_OUTCOME_RESOLVE_MS: "60000",
        SEND_OUTCOME_UNRESOLVED: "resend",
      }),
    );
  }
  await Promise.all([api.waitFor(/listening on/, 60_000), ...processes.slice(1).map((w) => w.waitFor(/job runner started/, 60_000))]);
  const base = `http://127.0.0.1:${port}`;
  const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };

  const recipients = Array.from({ length: CAMPAIGN_SIZE }, (_, i) => `+1415562${String(i).padStart(4, "0")}`);
  const created = await fetch(`${base}/api/v1/campaigns`, {
    method: "POST",
    headers,
    body: JSON.stringify({ name: "failover", message: "Your code is 123456", from: "ACME", type: "instant", recipients }),
  });
  if (created.status !== 201) throw new Error(`POST /campaigns: ${created.status} ${await created.text()}`);
  const { campaignId } = (await created.json()) as { campaignId: string };

  // POST /messages at 50/s, as a careful client: an Idempotency-Key each, sent again after a 503's Retry-After,
  // and a timeout of 30 s, past the window in which the promoted node holds commits (docs/OPERATIONS.md, "During
  // a failover": 10-20 s here).
  const statuses = new Map<number, number>();
  const accepted: string[] = [];
  let retryAfterMissing = 0;
  let postsAbandoned = 0;
  const noAnswer = new Set<string>();
  let posting = true;
  const postOne = async (i: number) => {
    const body = JSON.stringify({ to: `+1415563${String(i).padStart(4, "0")}`, from: "ACME", body: `One-time code ${i}` });
    for (let attempt = 0; attempt < 60; attempt++) {
      const res = await fetch(`${base}/api/v1/messages`, {
        method: "POST",
        headers: { ...headers, "Idempotency-Key": `post-${i}` },
        body,
        signal: AbortSignal.timeout(30_000),
      }).catch((error: Error) => void noAnswer.add(`${error.message} ${String((error.cause as Error | undefined)?.message ?? "")}`));
      const status = res?.status ?? 0;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (status === 201) return void accepted.push(((await res!.json()) as { messageId: string }).messageId);
      await res?.body?.cancel();
      const retryAfter = res?.headers.get("retry-after");
      if (status === 503 && !retryAfter) retryAfterMissing++;
      await new Promise((r) => setTimeout(r, 1000 * Number(retryAfter ?? 1)));
    }
    postsAbandoned++;
  };
  const inFlight: Promise<void>[] = [];
  const poster = (async () => {
    const start = Date.now();
    for (let i = 0; posting; i++) {
      inFlight.push(postOne(i));
      const next = start + ((i + 1) * 1000) / POSTS_PER_SECOND;
      await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
    }
  })();

  // Mid-run: the primary dies (its PostgreSQL and its keeper, SIGKILLed, as a machine that loses power).
  await waitUntil("the campaign under way", async () => submitTimes.length >= CAMPAIGN_SIZE / 4, 120_000, 20);
  const killedAt = Date.now();
  const killed = await formation.killPrimary();
  log(`killed ${killed} after ${submitTimes.length} submits`);
  const promoted = await waitUntil(
    "the other node taking writes",
    async () => {
      const node = await formation.writableNode();
      return node && node !== killed ? Date.now() : false;
    },
    120_000,
    200,
  );
  const resumed = await waitUntil("sends resumed", async () => submitTimes.find((t) => t > promoted) ?? false, 120_000, 20);
  log(`promoted after ${promoted - killedAt} ms, sends resumed ${resumed - promoted} ms after that`);
  await new Promise((r) => setTimeout(r, 10_000)); // POSTs after the failover, and a rate to measure
  posting = false;
  await poster;
  await Promise.all(inFlight);

  // The outcome, read from the new primary.
  const campaignIds: string[] = await db("messages").where({ campaign_id: campaignId }).pluck("id");
  const ids = [...campaignIds, ...accepted];
  let unsettled = 0;
  await waitUntilSettled(db, ids, 180_000).catch(async () => {
    unsettled = Number(
      (await db("messages").whereIn("id", ids).whereIn("status", ["scheduled", "sending", "sent"]).count({ n: "*" }))[0]!.n,
    );
  });
  const finalStatuses = Object.fromEntries(
    (await db("messages").whereIn("id", ids).select("status").count({ n: "*" }).groupBy("status")).map((r) => [
      (r as { status: string }).status,
      Number(r.n),
    ]),
  );
  const expected: string[] = await db("webhook_deliveries").whereIn("message_id", ids).pluck("id");
  await receiver
    .waitFor("every receipt", (all) => new Set(all.map((r) => r.headers["x-webhook-id"])).size >= expected.length, 120_000)
    .catch(() => undefined);
  const received = new Set(receiver.received.map((r) => r.headers["x-webhook-id"] as string));
  const carrierSubmits = new Map<string, number>();
  for (const m of peerLog.matchAll(/^SUBMIT \S+ (\d+)$/gm)) carrierSubmits.set(`+${m[1]}`, (carrierSubmits.get(`+${m[1]}`) ?? 0) + 1);
  const rate = (from: number, to: number) => submitTimes.filter((t) => t >= from && t < to).length / ((to - from) / 1000);
  return {
    ids,
    destinations: await db("messages").whereIn("id", ids).pluck("recipient"),
    carrierSubmits,
    statuses,
    retryAfterMissing,
    postsAbandoned,
    noAnswer,
    promotedAfterMs: promoted - killedAt,
    resumedAfterMs: resumed - killedAt,
    rateBefore: rate(killedAt - 3_000, killedAt),
    rateAfter: rate(resumed, resumed + 3_000),
    receiptsStored: expected.length,
    receiptsMissing: expected.filter((id) => !received.has(id)),
    unsettled,
    finalStatuses,
    serverVersion: (await db.raw<{ rows: { server_version: string }[] }>("SHOW server_version")).rows[0]!.server_version,
    apiErrors: api
      .output()
      .split("\n")
      .filter((l) => /"level":(50|60)/.test(l) || /"responseTime":\d{5}|aborted/.test(l)),
    outputs: () => processes.map((p) => p.output().slice(-4000)).join("\n---\n"),
  };
}
