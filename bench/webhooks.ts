// npm run bench:webhooks — 20,000 delivery receipts to a local keep-alive receiver: receipts/s and the
// latency from the status change (the receipt's timestamp) to the receipt arriving.
//
// The status changes are made by this process through the same function the sender uses (16 at a time),
// on messages already handed to the provider, while one worker process does nothing but deliver receipts:
// the dispatcher is measured, not the send path (bench:dispatch measures that).
import { ensureAccount } from "../server/operator/index.js";
import { insertWebhook } from "../server/db/webhooks.js";
import { changeMessageStatus } from "../server/services/statusChanges.js";
import { generateWebhookSecret } from "../server/domain/webhookSecrets.js";
import { startReceiver } from "./receiver.js";
import { machine, percentile, progress, scheduleMessages, startBenchDatabase, startWorkers, writeResult } from "./lib.js";

const N = Number(process.env.BENCH_RECEIPTS ?? 20_000);
const bench = await startBenchDatabase();
const { db } = bench;
const receiver = await startReceiver();
let bar: ReturnType<typeof progress> | undefined;
receiver.onReceipt = () => bar?.increment();

try {
  const { id: accountId } = await ensureAccount(db, "bench-webhooks");
  await insertWebhook(db, accountId, {
    name: "bench",
    url: receiver.url,
    secret: generateWebhookSecret(),
  });
  // Messages already claimed for sending, far in the future so no worker sends them itself.
  await scheduleMessages(db, { n: N, dueAt: () => new Date(Date.now() + 3600_000), accountId });
  await db("messages").update({ status: "sending" });
  const messages: { id: string; to: string }[] = await db("messages").select("id", { to: "recipient" });

  const workers = await startWorkers(1, bench.url, { WEBHOOK_ALLOW_PRIVATE: "1" });
  bar = progress("receipts received", N);
  const firstChangeWall = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < messages.length) {
        const m = messages[next++]!;
        await changeMessageStatus(
          db,
          { id: m.id, accountId, to: m.to, campaignId: null, providerMessageId: null },
          { status: "sent", at: new Date(), providerMessageId: `bench-${m.id}` },
        );
      }
    }),
  );
  const producedIn = Date.now() - firstChangeWall;
  while (receiver.received < N) await new Promise((r) => setTimeout(r, 50));
  bar.stop();
  await Promise.all(workers.map((w) => w.stop()));
  const latencies = receiver.latenciesMs.sort((a, b) => a - b);
  writeResult("webhooks", {
    machine: await machine(db),
    receipts: N,
    receiptsPerSecond: Math.round(N / ((receiver.lastArrival - receiver.firstChange) / 1000)),
    statusChangesPerSecond: Math.round(N / (producedIn / 1000)),
    latencyMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) },
  });
} finally {
  receiver.close();
  await bench.stop();
}
