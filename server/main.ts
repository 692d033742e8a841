// `npm start`: API, scheduler and dispatcher in one process (ROLE=api|worker|all splits them).
//
// The API (./http/app.js) and the worker (./worker.js) are imported only by the roles that run them: a
// process loads and compiles no more than it needs, which is much of its start-up time (docs/OPERATIONS.md).
import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import { loadConfig } from "./config.js";
import { EmbeddedPostgresUnusable } from "./db/embedded.js";
import { openDatabase } from "./db/open.js";
import { ProviderRefused, resolveDeploymentProvider } from "./routing/index.js";
import { createFirstStartKeys, invitationUrl } from "./operator/index.js";
import { createLogger } from "./logger.js";
import type { Worker } from "./worker.js";
import type { SmppServer } from "./smppServer/index.js";
import { deploymentDestinations } from "./config.js";

// SIGTERM must end the process within 10 s: in-flight requests and jobs get 7 s, then jobs are released.
const SHUTDOWN_DEADLINE_MS = 9_500;
const DRAIN_MS = 7_000;

const environment = loadConfig();
const log = createLogger(environment.logLevel);

const database = await openDatabase(environment, log).catch((error: unknown) => {
  if (error instanceof EmbeddedPostgresUnusable) {
    process.stderr.write(`${error.message}\n`);
  } else {
    // One clear line (e.g. a database migrated by a newer release) instead of an unhandled rejection's stack.
    log.fatal({ err: error }, `cannot start: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.exit(1);
});
const { db } = database;

// The deployment's provider (routing/deploymentProvider.ts): this process's PROVIDER, or the recorded one.
const config = await resolveDeploymentProvider(db, environment, log).then(
  (resolved) => ({ ...environment, ...resolved }),
  (error: unknown) => {
    if (!(error instanceof ProviderRefused)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  },
);

const firstKeys = await createFirstStartKeys(db, config.nodeEnv);
if (firstKeys) {
  // Printed once, on purpose, to the terminal only (never through the logger).
  process.stdout.write(
    `\nFirst start: created account "default". Open this link once to choose its owner's email and password,\n` +
      `then sign in to the dashboard (it works for 7 days):\n\n  ${invitationUrl(config, firstKeys.ownerToken, true)}\n\n` +
      `For programs, the account's API key:\n\n  ${firstKeys.account}\n\n` +
      `and an operator key (the operator API: accounts, their keys, numbers and users):\n\n  ${firstKeys.operator}\n\n` +
      `Keep them: they are not shown again. More keys: npm run keys -- create --account NAME (or --operator NAME)\n\n`,
  );
}

let worker: Worker | undefined;
if (config.role === "worker" || config.role === "all") {
  const { startWorker } = await import("./worker.js");
  worker = await startWorker({ db, databaseUrl: database.url, log, config });
}

// The SMPP server for client applications (ROLE=smpp, or all), when SMPP_SERVER_PORT is set.
let smppServer: SmppServer | undefined;
if ((config.role === "smpp" || config.role === "all") && config.smppServerPort !== null) {
  if (config.smppServerTlsPort !== null && (config.smppServerTlsCert === "" || config.smppServerTlsKey === "")) {
    process.stderr.write("SMPP_SERVER_TLS_PORT needs SMPP_SERVER_TLS_CERT and SMPP_SERVER_TLS_KEY (paths of PEM files)\n");
    process.exit(1);
  }
  const { startSmppServer } = await import("./smppServer/index.js");
  smppServer = await startSmppServer({
    db,
    log,
    port: config.smppServerPort,
    host: config.smppServerHost,
    destinations: deploymentDestinations(config),
    defaultCountry: config.smppDefaultCountry,
    enquireLinkMs: config.smppEnquireLinkMs,
    responseTimeoutMs: config.smppResponseTimeoutMs,
    holdHours: config.smppServerHoldHours,
    maxOpenParts: config.smppServerMaxOpenParts,
    tls:
      config.smppServerTlsPort === null
        ? undefined
        : {
            port: config.smppServerTlsPort,
            cert: readFileSync(config.smppServerTlsCert),
            key: readFileSync(config.smppServerTlsKey),
          },
  });
}

// startupMs: from the process's start (performance's time origin) to serving, database included.
let server: Server | undefined;
if (config.role === "api" || config.role === "all") {
  const { createApp, createHttpServer } = await import("./http/app.js");
  const app = createApp({ db, readDb: database.readDb, log, config, now: () => new Date() });
  server = createHttpServer(app, config).listen(config.port, config.host, () => {
    log.info(
      { port: config.port, role: config.role, startupMs: Math.round(performance.now()) },
      `listening on http://localhost:${config.port} (docs at /docs)`,
    );
  });
} else {
  log.info({ role: config.role, startupMs: Math.round(performance.now()) }, "started");
}
let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, "shutting down");
  const deadline = setTimeout(() => {
    log.error("shutdown deadline passed; exiting");
    process.exit(1);
  }, SHUTDOWN_DEADLINE_MS);
  deadline.unref();
  const httpClosed = server
    ? new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), DRAIN_MS).unref();
      })
    : Promise.resolve();
  // Each step is attempted even if another fails (the database may be the thing that is down): what cannot
  // be released now is released by its lease running out.
  const steps = await Promise.allSettled([httpClosed, worker?.stop(DRAIN_MS), smppServer?.stop()]);
  steps.push(...(await Promise.allSettled([database.close()])));
  for (const step of steps) if (step.status === "rejected") log.error({ err: step.reason }, "shutdown step failed");
  log.info("stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
