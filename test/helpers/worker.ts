// An in-process worker (job runner with every handler) over the file's test database.
import { afterAll, beforeAll } from "vitest";
import type { Config } from "../../server/config.js";
import { createLogger } from "../../server/logger.js";
import { startWorker, type Worker, type WorkerOptions } from "../../server/worker.js";
import type { TestServer } from "./server.js";

export const fastWorkerConfig: Partial<Config> = {
  simulatorDeliveryDelayMs: 50,
  webhookRetryBaseMs: 100,
  webhookTimeoutMs: 1000,
  workerConcurrency: 20,
};

export function useTestWorker(server: () => TestServer, extra: Partial<WorkerOptions> = {}): () => Worker {
  let worker: Worker | undefined;
  beforeAll(async () => {
    const s = server();
    worker = await startWorker({
      db: s.db,
      databaseUrl: s.url,
      log: createLogger(process.env.TEST_LOG_LEVEL ?? "silent"),
      config: s.config,
      ...extra,
    });
  });
  afterAll(async () => {
    await worker?.stop(2_000);
  });
  return () => worker!;
}
