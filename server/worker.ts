// The worker role: the job runner with every handler (sending, provider reports, campaign fan-out, receipt
// delivery) and the maintenance services. Any number of workers may share one database.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { deploymentDestinations, type Config } from "./config.js";
import type { JobHandoff } from "./db/jobs/index.js";
import type { Db } from "./db/knex.js";
import { extendHandedDeliveries, handOverDeliveries } from "./db/receiptHandoffs.js";
import { coalesced } from "./jobs/coalesced.js";
import { campaignFanoutHandler } from "./jobs/handlers/campaignFanout.js";
import { deliverReceiptHandler } from "./jobs/handlers/deliverReceipt.js";
import { providerReportHandler } from "./jobs/handlers/providerReport.js";
import { sendMessageHandler } from "./jobs/handlers/sendMessage.js";
import { smppReceiptHandler } from "./jobs/handlers/smppReceipt.js";
import { maintenanceChores, startMaintenance, type Maintenance } from "./jobs/maintenance/index.js";
import { ReceiptBatches } from "./jobs/receiptBatches.js";
import { JobRunner } from "./jobs/runner.js";
import type { JobHandlers } from "./jobs/types.js";
import type { Logger } from "./logger.js";
import { ConnectorSet, fixedRouter, sessionLiveMs, type SendRouter } from "./providers/connectorSet.js";
import { createSimulator } from "./providers/index.js";
import { throughputLookaheadMs } from "./services/sendingPolicy/index.js";
import type { Provider } from "./providers/types.js";
import { ReceiptClient } from "./webhooks/client.js";
import type { Resolver } from "./webhooks/urlPolicy.js";

export interface WorkerOptions {
  db: Db;
  databaseUrl: string;
  log: Logger;
  config: Config;
  /** Every message to this provider, not the deployment's connectors (tests of one provider's behaviour). */
  provider?: Provider;
  resolver?: Resolver;
  workerId?: string;
  /**
   * The clock the sending policy reads local wall-clock time from (quiet hours). Production: the real clock.
   * A test pins it to a wall-clock situation (21:30 in Los Angeles); jobs still run on real time, a hold's end
   * is converted back (services/sendingPolicy/types.ts, PolicyContext).
   */
  clock?: () => Date;
}

export interface Worker {
  runner: JobRunner;
  /** The deployment's connectors as this worker runs them (undefined with a provider given). */
  connectors: ConnectorSet | undefined;
  /** The provider given, or the `default` connector's (the first one's without it), as it runs now in this worker. */
  readonly provider: Provider;
  maintenance: Maintenance;
  stop(deadlineMs?: number): Promise<void>;
}

export async function startWorker(opts: WorkerOptions): Promise<Worker> {
  const { db, log, config } = opts;
  const workerId = opts.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  // SMPP receipts are applied by the connection that reads them; the deliveries they make go to this runner
  // (made below; the sessions open, and receipts arrive, only once it exists).
  const connectors = opts.provider
    ? undefined
    : new ConnectorSet({
        db,
        config,
        log,
        workerId,
        refreshMs: config.connectorRefreshMs,
        receiptHandoff: (): JobHandoff | undefined => runner.handoff("receipts"),
      });
  const router: SendRouter = connectors ?? fixedRouter(opts.provider!);
  const client = new ReceiptClient({
    timeoutMs: config.webhookTimeoutMs,
    allowPrivate: config.webhookAllowPrivate,
    resolver: opts.resolver,
  });
  const runner = new JobRunner({
    db,
    databaseUrl: opts.databaseUrl,
    log,
    // Sends and the other short jobs in one lane, receipt deliveries (third-party HTTP) in another: neither
    // ever waits for the other's slots (docs/ARCHITECTURE.md, "Lanes").
    lanes: [
      { lane: "default", concurrency: config.workerConcurrency, prefetch: config.workerPrefetch || undefined },
      // A deep local queue: receipts over their webhook's cap are snoozed at once, many per claim.
      { lane: "receipts", concurrency: config.workerReceiptConcurrency, prefetch: config.workerReceiptConcurrency * 4 },
    ],
    leaseMs: config.jobLeaseMs,
    workerId,
    heldConnectors: () => connectors?.held() ?? [],
    beforeSends: connectors && (() => connectors.catchUp()),
    handlers: jobHandlers(opts, router, client),
    // Receipt deliveries handed to this worker by its own status changes have no job: their leases are theirs.
    rowless: {
      extend: (worker, ids, leaseMs) => extendHandedDeliveries(db, worker, ids, leaseMs),
      release: (worker) => handOverDeliveries(db, { by: worker }),
    },
  });
  await (connectors ? connectors.start() : opts.provider!.start?.());
  await runner.start();
  // Batched webhooks' events: claimed from their rows by webhook, no job each (jobs/receiptBatches.ts).
  const batches = new ReceiptBatches(db, client, {
    workerId,
    timeoutMs: config.webhookTimeoutMs,
    retryBaseMs: config.webhookRetryBaseMs,
    disableAfterFailures: config.webhookDisableAfterFailures,
    disableAfterMs: config.webhookDisableAfterMs,
    log: log.child({ component: "webhook-batches" }),
  });
  batches.start();
  // Every worker may lead; one does at a time. The election runs at the rescue cadence, so a dead leader's
  // successor starts rescuing within about two lease thirds.
  const maintenance = startMaintenance({
    databaseUrl: opts.databaseUrl,
    log,
    chores: workerChores(opts),
    electEveryMs: Math.max(100, Math.floor(config.jobLeaseMs / 3)),
  });
  return {
    runner,
    connectors,
    get provider() {
      if (opts.provider) return opts.provider;
      const live = connectors!.list();
      const main = live.find((c) => c.name === "default") ?? live[0];
      if (!main) throw new Error("no connector is running in this worker");
      // Its one session when this worker holds one (an SMPP session's connection is what tests and tools read).
      return main.sessions.length === 1 ? main.sessions[0]! : main.provider;
    },
    maintenance,
    async stop(deadlineMs = 7_000) {
      await maintenance.stop();
      await batches.stop();
      await runner.stop(deadlineMs);
      await (connectors ? connectors.stop() : opts.provider!.stop?.());
      await client.close();
    },
  };
}

/** A handler for every job kind, with its settings. */
function jobHandlers(opts: WorkerOptions, router: SendRouter, client: ReceiptClient): JobHandlers {
  const { db, log, config } = opts;
  return {
    // Two batches at a time: the next one waits for the send window, ready when it frees; what arrives
    // meanwhile is merged into the one after.
    send_message: coalesced(
      sendMessageHandler(
        db,
        router,
        {
          resolveMs: config.sendOutcomeResolveMs,
          unresolved: config.sendOutcomeUnresolved,
          policy: {
            linkMaxSegmentsPerSecond: config.providerMaxSegmentsPerSecond,
            throughputLookaheadMs: throughputLookaheadMs(config.throughputPacerMs),
            clock: opts.clock,
          },
        },
        // Test keys' messages: the simulator, whatever the deployment's connectors.
        createSimulator(db, config),
      ),
      { running: 2 },
    ),
    provider_report: providerReportHandler(db),
    campaign_fanout: campaignFanoutHandler(db, { destinations: deploymentDestinations(config) }),
    deliver_receipt: deliverReceiptHandler(db, client, {
      retryBaseMs: config.webhookRetryBaseMs,
      maxInFlight: config.webhookMaxInFlight,
      laneConcurrency: config.workerReceiptConcurrency,
      slowAfterFailures: config.webhookSlowAfterFailures,
      disableAfterFailures: config.webhookDisableAfterFailures,
      disableAfterMs: config.webhookDisableAfterMs,
      log: log.child({ component: "webhooks" }),
    }),
    smpp_receipt: coalesced(smppReceiptHandler(db), { running: 1 }),
  } satisfies JobHandlers;
}

/** The leader's chores with their settings. */
function workerChores(opts: WorkerOptions) {
  const { config, log } = opts;
  return maintenanceChores(opts.db, {
    leaseMs: config.jobLeaseMs,
    jobRetentionMs: config.jobRetentionMs,
    retention: {
      messageRetentionDays: config.messageRetentionDays,
      deliveryLogRetentionDays: config.deliveryLogRetentionDays,
      messageBodyRetentionDays: config.messageBodyRetentionDays,
    },
    sendOutcomeResolveMs: config.sendOutcomeResolveMs,
    inboundReassemblyTimeoutMs: config.inboundReassemblyTimeoutMs,
    autoReplyMaxPerHour: config.autoReplyMaxPerHour,
    throughputPacerMs: config.throughputPacerMs,
    linkMaxSegmentsPerSecond: config.providerMaxSegmentsPerSecond,
    connectorRefreshMs: config.connectorRefreshMs,
    connectorLiveMs: sessionLiveMs(config.connectorRefreshMs),
    log,
  });
}
