// npm run bench:inbound — mobile-originated messages from an independent SMSC (the Net::SMPP peer the tests use,
// test/helpers/smsc-peer.pl) through worker processes (PROVIDER=smpp) to stored and posted as message.received
// to a local keep-alive receiver: messages/s with 1 and 2 workers. The peer spreads MOs over the bound sessions
// with a window of 10 unacknowledged per session, as a carrier does; each MO is acknowledged only once stored.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { ensureAccount } from "../server/operator/index.js";
import { insertNumber } from "../server/db/numbers.js";
import { insertWebhook } from "../server/db/webhooks.js";
import { generateWebhookSecret } from "../server/domain/webhookSecrets.js";
import { startReceiver } from "./receiver.js";
import { machine, root, startBenchDatabase, startWorkers, waitForCount, writeResult } from "./lib.js";

const N = Number(process.env.BENCH_INBOUND_MESSAGES ?? 5_000);
const WORKERS = (process.env.BENCH_WORKERS ?? "1,2").split(",").map(Number);
const WINDOW = 10;

if (!existsSync("/usr/share/perl5/Net/SMPP.pm")) {
  const notice = "bench:inbound needs the Net::SMPP peer: install Debian's libnet-smpp-perl";
  if (process.env.CI === "true") throw new Error(notice);
  console.error(`\n*** SKIPPED: ${notice} ***\n`);
  process.exit(0);
}

/** The peer, with its log; resolves once it listens. */
async function startPeer(): Promise<{ child: ChildProcess; port: number; log: () => string }> {
  const child = spawn("perl", ["test/helpers/smsc-peer.pl", "200"], {
    cwd: root,
    env: { ...process.env, PEER_MO_SPREAD: "1", PEER_MO_WINDOW: String(WINDOW) },
    stdio: ["pipe", "pipe", "inherit"],
  });
  let log = "";
  child.stdout.on("data", (c: Buffer) => (log += c.toString()));
  for (;;) {
    const m = /LISTENING (\d+)/.exec(log);
    if (m) return { child, port: Number(m[1]), log: () => log };
    await new Promise((r) => setTimeout(r, 20));
  }
}

const bench = await startBenchDatabase();
const { db } = bench;
const receiver = await startReceiver();
const rounds: Record<string, { messagesPerSecond: number; storedSeconds: number; postedSeconds: number }> = {};
try {
  for (const workers of WORKERS) {
    const peer = await startPeer();
    const { id: accountId } = await ensureAccount(db, `bench-inbound-${workers}`);
    const number = `+1415555${String(7000 + workers).padStart(4, "0")}`;
    await insertNumber(db, accountId, { phoneNumber: number, name: null, selfService: false });
    await insertWebhook(db, accountId, { name: "bench", url: receiver.url, secret: generateWebhookSecret(), events: ["message.received"] });
    const started = await startWorkers(workers, bench.url, {
      PROVIDER: "smpp",
      SMPP_URL: `smpp://bench:secret@127.0.0.1:${peer.port}`,
      WEBHOOK_ALLOW_PRIVATE: "1",
    });
    while ((peer.log().match(/^BOUND /gm) ?? []).length < workers) await new Promise((r) => setTimeout(r, 20));
    const postedBefore = receiver.received;
    const storedCount = async () =>
      Number((await db("messages").where({ account_id: accountId, direction: "inbound" }).count({ n: "*" }))[0]!.n);
    const t0 = Date.now();
    const text = (i: number) => Buffer.from(`Order ${i} arrived, thank you`).toString("hex");
    peer.child.stdin!.write(
      Array.from({ length: N }, (_, i) => `MO b${i} 1415${String(7_000_000 + i)} ${number.slice(1)} 0 ${text(i)}\n`).join(""),
    );
    await waitForCount(`stored (${workers} worker${workers > 1 ? "s" : ""})`, N, storedCount);
    const storedSeconds = (Date.now() - t0) / 1000;
    await waitForCount("message.received posted", N, async () => receiver.received - postedBefore);
    const postedSeconds = (Date.now() - t0) / 1000;
    rounds[`workers${workers}`] = { messagesPerSecond: Math.round(N / postedSeconds), storedSeconds, postedSeconds };
    await Promise.all(started.map((w) => w.stop()));
    peer.child.kill("SIGTERM");
  }
  writeResult("inbound", { machine: await machine(db), messages: N, window: WINDOW, throughput: rounds });
} finally {
  receiver.close();
  await bench.stop();
}
