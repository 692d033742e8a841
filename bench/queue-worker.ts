// One worker process of bench:queue and bench:precision: our JobRunner or graphile-worker, running the
// no-op task `noop` with the same concurrency (24) and local-queue size (500). The parent asks for
// progress over IPC ("report"), so counting costs the database nothing; a job's payload may carry `dueAt`
// (ms since the epoch), and then the delay from due to start is recorded too.
import { Logger as GraphileLogger, run } from "graphile-worker";
import { createDb } from "../server/db/knex.js";
import { JobRunner } from "../server/jobs/runner.js";
import { createLogger } from "../server/logger.js";

const url = process.env.DATABASE_URL!;
const system = process.env.QUEUE_SYSTEM as "ours" | "graphile";
const CONCURRENCY = 24;
const LOCAL_QUEUE = 500;

let count = 0;
let lastFinishedAt = 0;
const startDelaysMs: number[] = [];
const noop = (payload: unknown) => {
  const dueAt = (payload as { dueAt?: number } | null)?.dueAt;
  if (dueAt !== undefined) startDelaysMs.push(Date.now() - dueAt);
  count++;
  lastFinishedAt = Date.now();
};

let stop: () => Promise<void>;
if (system === "ours") {
  const db = createDb(url, 10);
  const runner = new JobRunner({
    db,
    databaseUrl: url,
    log: createLogger("silent"),
    handlers: { noop: async (job) => noop(job.payload) },
    concurrency: CONCURRENCY,
    prefetch: LOCAL_QUEUE,
  });
  await runner.start();
  stop = async () => {
    await runner.stop();
    await db.destroy();
  };
} else {
  const runner = await run({
    connectionString: url,
    concurrency: CONCURRENCY,
    noHandleSignals: true,
    logger: new GraphileLogger(() => () => undefined),
    taskList: { noop: async (payload) => noop(payload) },
    preset: { worker: { localQueue: { size: LOCAL_QUEUE }, completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
  });
  stop = () => runner.stop();
}

process.on("message", (m: string) => {
  if (m === "report") process.send!({ count, lastFinishedAt, startDelaysMs: startDelaysMs.splice(0) });
  if (m === "stop") void stop().then(() => process.exit(0));
});
process.send!("ready");
