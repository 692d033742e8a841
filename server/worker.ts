// The worker role: the job runner with every handler (sending, provider reports, campaign fan-out, receipt
// delivery) and the maintenance services. Any number of workers may share one database.
import type { Config } from "./config.js";
import type { Db } from "./db/knex.js";
import { campaignFanoutHandler } from "./jobs/handlers/campaignFanout.js";
import { providerReportHandler } from "./jobs/handlers/providerReport.js";
import { sendMessageHandler } from "./jobs/handlers/sendMessage.js";
import { smppReceiptHandler } from "./jobs/handlers/smppReceipt.js";
import { createCleaner, createRescuer } from "./jobs/maintenance.js";
import { JobRunner } from "./jobs/runner.js";
import type { JobHandlers } from "./jobs/types.js";
import type { Logger } from "./logger.js";
import { createProvider } from "./providers/index.js";
import type { Provider } from "./providers/types.js";
import { ReceiptClient } from "./webhooks/client.js";
import { deliverReceiptHandler } from "./webhooks/dispatcher.js";
import type { Resolver } from "./webhooks/urlPolicy.js";

export interface WorkerOptions {
  db: Db;
  databaseUrl: string;
  log: Logger;
  config: Config;
  provider?: Provider;
  resolver?: Resolver;
  workerId?: string;
}

export interface Worker {
  runner: JobRunner;
  provider: Provider;
  stop(deadlineMs?: number): Promise<void>;
}

export async function startWorker(opts: WorkerOptions): Promise<Worker> {
  const { db, log, config } = opts;
  const provider = opts.provider ?? createProvider(config, db, log);
  const client = new ReceiptClient({ timeoutMs: config.webhookTimeoutMs, allowPrivate: config.webhookAllowPrivate, resolver: opts.resolver });
  const runner = new JobRunner({
    db,
    databaseUrl: opts.databaseUrl,
    log,
    concurrency: config.workerConcurrency,
    prefetch: config.workerPrefetch || undefined,
    leaseMs: config.jobLeaseMs,
    workerId: opts.workerId,
    handlers: {
      send_message: sendMessageHandler(db, provider),
      provider_report: providerReportHandler(db),
      campaign_fanout: campaignFanoutHandler(db),
      deliver_receipt: deliverReceiptHandler(db, client, { retryBaseMs: config.webhookRetryBaseMs }),
      smpp_receipt: smppReceiptHandler(db),
    } satisfies JobHandlers,
  });
  const rescuer = createRescuer(db, log, Math.max(100, Math.floor(config.jobLeaseMs / 3)));
  const cleaner = createCleaner(db, log, config.jobRetentionMs);
  await provider.start?.();
  await runner.start();
  rescuer.start();
  cleaner.start();
  return {
    runner,
    provider,
    async stop(deadlineMs = 7_000) {
      rescuer.stop();
      cleaner.stop();
      await runner.stop(deadlineMs);
      await provider.stop?.();
      await client.close();
    },
  };
}
