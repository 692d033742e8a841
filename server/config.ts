// Every environment variable of the service, declared once: its name, its default, a one-line description and
// how it is read. loadConfig reads them; `npm run gen` writes docs/CONFIGURATION.md from the same table, and a
// test fails when the committed page differs, so the reference cannot drift from the code.
import type { DeploymentDestinations } from "./domain/sendingGuards.js";
import {
  flag,
  int,
  oneOf,
  optional,
  optionalCountry,
  optionalOneOf,
  optionalPositiveInt,
  prefixList,
  text,
  type Env,
} from "./settingReaders.js";
export type { Setting } from "./settingReaders.js";

/** The table, in the order the reference lists it. The keys are the fields of Config. */
export const SETTINGS = {
  // HTTP
  port: int("PORT", 3000, "HTTP port"),
  publicUrl: optional(
    "PUBLIC_URL",
    "the address people reach the service at (`https://sms.example.com`): invitation links are made with it; unset = `http://localhost:PORT`",
  ),
  host: text("HOST", "0.0.0.0", "HTTP bind address"),
  trustProxy: flag(
    "TRUST_PROXY",
    "`1` when the service is reached through a TLS-terminating proxy that sets `X-Forwarded-Proto`: a request it says came over `https` gets the session cookie with `Secure` (so does every request when `PUBLIC_URL` is `https://…`); unset = the header is ignored",
  ),
  dashboardKeySignIn: optionalOneOf(
    "DASHBOARD_KEY_SIGN_IN",
    ["on", "off"] as const,
    "`on` offers signing in to the dashboard with an API key besides email and password (for development); unset = on unless `NODE_ENV=production`",
  ),
  smtpUrl: optional(
    "SMTP_URL",
    "where invitations are mailed: `smtp://user:password@host:587` (STARTTLS when offered) or `smtps://…:465`; unset = not mailed (the inviter passes the link on)",
  ),
  smtpFrom: text("SMTP_FROM", "SMS Platform <no-reply@localhost>", "the From of the invitation mails"),
  searchScanRows: int(
    "SEARCH_SCAN_ROWS",
    10_000,
    "messages one page of a message search (`q`, `to`, `from`) looks through at most, newest first; a page that found too few says where to search on",
  ),
  httpHeadersTimeoutMs: int(
    "HTTP_HEADERS_TIMEOUT_MS",
    10_000,
    "a request must have sent its headers by then (slow clients are cut off; checked every second)",
  ),
  httpRequestTimeoutMs: int("HTTP_REQUEST_TIMEOUT_MS", 30_000, "a request must have been received completely by then"),
  exportsPerAccount: int(
    "EXPORTS_PER_ACCOUNT",
    2,
    "exports an account streams at once per API process (each holds a connection); more: 429",
  ),
  exportStallMs: int("EXPORT_STALL_MS", 30_000, "an export whose client takes nothing for this long is cut off, its COPY cancelled"),
  // Database
  databaseReadUrl: optional(
    "DATABASE_READ_URL",
    "optional: a standby's connection string (one host or several, as `DATABASE_URL`) for reports and exports; unset = `DATABASE_URL`",
  ),
  databaseUrl: optional(
    "DATABASE_URL",
    "PostgreSQL (13+) connection string, one host or several in libpq's form (`h1:5432,h2:5432/app?target_session_attrs=read-write`: the one that takes writes, followed through a failover); unset = an embedded PostgreSQL under `DATA_DIR`",
  ),
  embeddedPlacementDir: optional(
    "EMBEDDED_PLACEMENT_DIR",
    "as root from a private directory: where the embedded PostgreSQL is placed (default `/var/lib/sms-platform`)",
  ),
  dataDir: text(
    "DATA_DIR",
    ".data",
    "where the embedded PostgreSQL keeps its data (kept across restarts; one left running by a killed server is stopped by the next start)",
  ),
  dbPoolMax: int("DB_POOL_MAX", 25, "database connections per process (plus one for LISTEN in a worker)"),
  // Process
  nodeEnv: text("NODE_ENV", "development", "`production` disables the first-start key"),
  role: oneOf(
    "ROLE",
    ["api", "worker", "smpp", "all"] as const,
    "all",
    "`api` (HTTP only), `worker` (jobs and maintenance only), `smpp` (the SMPP server for client applications only) or `all`; any number of each may share one database",
  ),
  logLevel: text("LOG_LEVEL", "info", "pino level (`debug` … `silent`); logs are JSON on stdout (the keys CLI: `warn`, on stderr)"),
  metricsToken: optional(
    "METRICS_TOKEN",
    "when set, `GET /metrics` needs `Authorization: Bearer <token>` (401 otherwise); set it in production",
  ),
  validateResponses: flag("VALIDATE_RESPONSES", "`1` validates every response against the OpenAPI document too (always on in tests)"),
  // Jobs
  workerConcurrency: int(
    "WORKER_CONCURRENCY",
    100,
    "jobs a worker runs at once (sends and provider reports run in batches of what one claim returns)",
  ),
  workerPrefetch: int(
    "WORKER_PREFETCH",
    0,
    "jobs claimed per round trip; those without a free slot wait in the worker's local queue, their leases extended",
    {
      shownDefault: "`WORKER_CONCURRENCY`",
    },
  ),
  workerReceiptConcurrency: int(
    "WORKER_RECEIPT_CONCURRENCY",
    200,
    "receipt deliveries (POSTs) a worker runs at once, in a lane of their own: they never take the slots of sends and other jobs (`WORKER_CONCURRENCY`); webhooks in a failure run share at most half of them",
    { map: (n) => Math.max(1, n) },
  ),
  jobLeaseMs: int(
    "JOB_LEASE_MS",
    15_000,
    "a claimed job's lease: a heartbeat renews it; a dead worker's jobs are claimable again once it runs out",
  ),
  sendOutcomeResolveMs: int(
    "SEND_OUTCOME_RESOLVE_MS",
    600_000,
    "a message whose submit was on the wire when its worker died or its link dropped waits this long (shown as `scheduled`) for a carrier receipt to say what became of it, then becomes `failed` / `send_outcome_unknown`; receipts mostly arrive within seconds to a few minutes (at least 1)",
    { map: (n) => Math.max(1, n) },
  ),
  sendOutcomeUnresolved: oneOf(
    "SEND_OUTCOME_UNRESOLVED",
    ["fail", "resend"] as const,
    "fail",
    "what becomes of an unknown send outcome no receipt resolved within `SEND_OUTCOME_RESOLVE_MS`: `fail` (`failed` / `send_outcome_unknown`; never a duplicate) or `resend` (taken as never received and sent again, once; only for a link that receipts every message it accepts, else a recipient may get it twice)",
  ),
  jobRetentionMs: int(
    "JOB_RETENTION_HOURS",
    24,
    "failed and cancelled jobs are deleted after this many hours (a job that succeeds is deleted at once)",
    {
      map: (hours) => hours * 3600_000,
    },
  ),
  // Retention (the maintenance leader applies it in small batches; see docs/OPERATIONS.md)
  messageRetentionDays: int(
    "MESSAGE_RETENTION_DAYS",
    400,
    "messages in a final status are deleted this many days after creation, with their status history and receipt deliveries; an account's `message_retention_days` overrides it; `0` keeps them for ever",
  ),
  deliveryLogRetentionDays: int(
    "DELIVERY_LOG_RETENTION_DAYS",
    30,
    "finished receipt deliveries (the webhooks' delivery log) are deleted after this many days; `0` keeps them for ever",
  ),
  messageBodyRetentionDays: int(
    "MESSAGE_BODY_RETENTION_DAYS",
    0,
    "a message's text is erased (the API then shows `body` as an empty string) this many days after creation, once it has been handed to the provider; unset or `0` keeps it",
    { shownDefault: "unset" },
  ),
  // Rate limits
  rateLimitPerSecond: int(
    "RATE_LIMIT_PER_SECOND",
    50,
    "requests per second per account (all its keys share them; an operator key has its own), shared by every instance (kept in PostgreSQL); `0` turns limits off",
  ),
  rateLimitBurst: int("RATE_LIMIT_BURST", 100, "requests an account may make at once before the per-second rate applies"),
  rateLimitBulkPerSecond: int(
    "RATE_LIMIT_BULK_PER_SECOND",
    1000,
    "bulk rows per second per account: campaign recipients, imported contact rows and batch items, in a bucket of their own (so a large import never blocks the next send or read); `0` turns it off",
  ),
  rateLimitBulkBurst: int("RATE_LIMIT_BULK_BURST", 20000, "bulk rows an account may send at once (more leaves the bulk bucket in debt)"),
  unauthenticatedPerSecond: int(
    "UNAUTHENTICATED_RATE_PER_SECOND",
    5,
    "requests without a valid key (none, malformed, unknown, wrong secret) per second per client address (IPv6 by /64), per process, checked before any database query; `0` turns it off",
  ),
  unauthenticatedBurst: int("UNAUTHENTICATED_BURST", 20, "requests without a valid key an address may make at once"),
  // Messages and campaigns
  defaultSenderId: text("DEFAULT_SENDER_ID", "SMSPlatform", "sender (`from`) of campaigns that give none"),
  allowInternationalNetworks: flag(
    "ALLOW_INTERNATIONAL_NETWORKS",
    "`1` lets accounts send to numbers of no country (satellite +870/+881, international networks +882/+883, +800…): a toll-fraud favourite, refused by default",
  ),
  blockedPrefixes: prefixList(
    "BLOCKED_PREFIXES",
    "destinations no account may send to, as E.164 prefixes separated by commas (`+4470,+882`): 422 `destination_blocked` at every door, `ESME_RINVDSTADR` over SMPP, a campaign recipient skipped (`blocked`); each account adds its own `limits.blockedPrefixes`",
  ),
  // Webhooks
  webhookAllowPrivate: flag(
    "WEBHOOK_ALLOW_PRIVATE",
    "`1` allows `http://` and private or loopback webhook URLs. **Development and tests only; never in production**",
  ),
  maxWebhooksPerAccount: int("MAX_WEBHOOKS_PER_ACCOUNT", 10, "webhooks an account may register; one more is a 422 `webhook_limit_reached`"),
  webhookTimeoutMs: int("WEBHOOK_TIMEOUT_MS", 5000, "a receipt delivery must be answered 2xx within this"),
  webhookRetryBaseMs: int("WEBHOOK_RETRY_BASE_MS", 5000, "retry n of a receipt waits base × 5^(n-1) ± 10 %"),
  webhookMaxInFlight: int(
    "WEBHOOK_MAX_IN_FLIGHT",
    50,
    "receipt deliveries to one webhook at once, per worker (a quarter of the default receipts lane, so one busy webhook cannot fill it); more wait without holding a slot (at least 1)",
    { map: (n) => Math.max(1, n) },
  ),
  webhookSlowAfterFailures: int(
    "WEBHOOK_SLOW_AFTER_FAILURES",
    3,
    "after this many consecutive failed attempts a webhook gets one delivery at a time, until one succeeds",
  ),
  webhookDisableAfterFailures: int(
    "WEBHOOK_DISABLE_AFTER_FAILURES",
    100,
    "a webhook is disabled after this many consecutive failed attempts, once they span `WEBHOOK_DISABLE_AFTER_HOURS`; `0` never disables",
  ),
  webhookDisableAfterMs: int(
    "WEBHOOK_DISABLE_AFTER_HOURS",
    120,
    "how long a webhook's attempts must have been failing (no success in between) before it is disabled",
    { map: (hours) => hours * 3600_000 },
  ),
  // Provider
  provider: optionalOneOf(
    "PROVIDER",
    ["simulator", "smpp"] as const,
    "`simulator` or `smpp`: the deployment's provider, recorded in the database at start (with `SMPP_URL`) so every process agrees. Unset: the recorded one; on a first start with none recorded, the simulator outside production, and no start in production",
  ),
  allowSimulatorInProduction: flag(
    "ALLOW_SIMULATOR_IN_PRODUCTION",
    "`1` lets a production deployment (`NODE_ENV=production`) run on the simulator, which sends nothing; without it such a start is refused",
  ),
  simulatorDeliveryDelayMs: int("SIMULATOR_DELIVERY_DELAY_MS", 500, "simulator: time from `sent` to the final status"),
  simulatorSubmitDelayMs: int(
    "SIMULATOR_SUBMIT_DELAY_MS",
    0,
    "simulator: latency of the submit itself (tests use it to hold jobs in flight)",
  ),
  smppUrl: optional("SMPP_URL", "`smpp://system_id:password@host:port` for `PROVIDER=smpp` (bound as a transceiver)"),
  smppDefaultCountry: optionalCountry(
    "SMPP_DEFAULT_COUNTRY",
    "ISO 3166 country code (e.g. `GB`) the SMSC's national-format addresses (TON 2, or TON 0 without an international prefix) are numbers of; unset: such addresses are kept as they came",
  ),
  smppSystemType: text("SMPP_SYSTEM_TYPE", "", "`system_type` of the SMPP bind"),
  smppMaxInFlight: int("SMPP_MAX_IN_FLIGHT", 10, "SMPP window: `submit_sm` awaiting their `submit_sm_resp`, per worker (at least 1)", {
    map: (n) => Math.max(1, n),
  }),
  smppResponseTimeoutMs: int(
    "SMPP_RESPONSE_TIMEOUT_MS",
    10_000,
    "a `submit_sm`, `enquire_link` or bind (from the TCP connect) unanswered this long ends the SMPP session, which reconnects with backoff (at least 1)",
    {
      map: (n) => Math.max(1, n),
    },
  ),
  connectorRefreshMs: int("CONNECTOR_REFRESH_MS", 1000, "ms between a worker's looks at connectors and routes (≥ 100)", {
    map: (n) => Math.max(100, n),
  }),
  smppServerPort: optionalPositiveInt(
    "SMPP_SERVER_PORT",
    'TCP port of the SMPP server for client applications (docs/SMPP.md, "For client applications"); unset: no SMPP server',
  ),
  smppServerHost: text("SMPP_SERVER_HOST", "0.0.0.0", "bind address of the SMPP server for client applications"),
  smppServerHoldHours: int(
    "SMPP_SERVER_HOLD_HOURS",
    72,
    "how long a delivery receipt waits in PostgreSQL for a receiver bind of its SMPP client application's account (at least 1)",
    { map: (n) => Math.max(1, n) },
  ),
  smppServerMaxOpenParts: int(
    "SMPP_SERVER_MAX_OPEN_PARTS",
    1000,
    "how many incomplete concatenated messages (parts waiting for the rest) an account may have over SMPP at once; the first part of one more is refused with ESME_RMSGQFUL (at least 1)",
    { map: (n) => Math.max(1, n) },
  ),
  smppServerTlsPort: optionalPositiveInt(
    "SMPP_SERVER_TLS_PORT",
    "TCP port of the SMPP server over TLS (needs `SMPP_SERVER_TLS_CERT` and `SMPP_SERVER_TLS_KEY`); unset: no TLS port",
  ),
  smppServerTlsCert: text("SMPP_SERVER_TLS_CERT", "", "path of the PEM certificate (chain) of the SMPP server over TLS"),
  smppServerTlsKey: text("SMPP_SERVER_TLS_KEY", "", "path of the PEM private key of the SMPP server over TLS"),
  smppEnquireLinkMs: int(
    "SMPP_ENQUIRE_LINK_MS",
    30_000,
    "how often `enquire_link` is sent on a bound SMPP session; a silent SMSC is noticed within this plus `SMPP_RESPONSE_TIMEOUT_MS` (at least 1)",
    {
      map: (n) => Math.max(1, n),
    },
  ),
  smppMaxPerSecond: int(
    "SMPP_MAX_PER_SECOND",
    50,
    '`submit_sm` a second, per worker (at least 1); while the SMSC throttles, less (docs/SMPP.md, "Throttling")',
    { map: (n) => Math.max(1, n) },
  ),
  smppThrottlePauseMs: int(
    "SMPP_THROTTLE_PAUSE_MS",
    1000,
    "after an `ESME_RTHROTTLED` or `ESME_RMSGQFUL` answer nothing is submitted on the SMPP session for this long; the rate halves too (down to 1 a second) and comes back up as submits succeed",
  ),
  smppThrottleMaxWaitMs: int(
    "SMPP_THROTTLE_MAX_WAIT_MS",
    60_000,
    "the longest a claimed message (`sending`, not cancellable) waits for a throttled SMPP link before it goes back to `scheduled`, certainly not handed over (sooner at its `validUntil`); a message half sent keeps waiting (at least 1)",
    { map: (n) => Math.max(1, n) },
  ),
  providerMaxSegmentsPerSecond: optionalPositiveInt(
    "PROVIDER_MAX_SEGMENTS_PER_SECOND",
    "the most SMS segments a second the whole service hands to the provider, across every worker process (a long message counts each part); over it messages wait their turn by priority, then `scheduledAt`; unset: no cap",
  ),
  throughputPacerMs: int(
    "THROUGHPUT_PACER_MS",
    100,
    "how often the maintenance leader releases messages waiting for a throughput cap (an account's `maxSegmentsPerSecond` or `PROVIDER_MAX_SEGMENTS_PER_SECOND`), handing out send slots up to twice this ahead; a `high` message due now waits at most about three periods behind a capped backlog (at least 10)",
    { map: (n) => Math.max(10, n) },
  ),
  autoReplyMaxPerHour: int(
    "AUTO_REPLY_MAX_PER_HOUR",
    100,
    "automatic replies (to STOP, START, HELP) one account may send in an hour; besides, one number gets at most 5 a day and one HELP reply a day",
  ),
  inboundReassemblyTimeoutMs: int(
    "INBOUND_REASSEMBLY_TIMEOUT_MS",
    60_000,
    "a long inbound message whose parts are still missing this long after its first part arrived is stored with what arrived, `incomplete: true` (at least 1)",
    { map: (n) => Math.max(1, n) },
  ),
};

type Settings = typeof SETTINGS;

/** What loadConfig returns: one field per setting, of the type its reader gives. */
export type Config = { [K in keyof Settings]: ReturnType<Settings[K]["read"]> };

export function loadConfig(env: Env = process.env): Config {
  const config: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(SETTINGS)) config[key] = setting.read(env);
  return config as Config;
}

/** The deployment's rules on destinations, as every door applies them (domain/sendingGuards.ts). */
export const deploymentDestinations = (config: Config): DeploymentDestinations => ({
  internationalNetworks: config.allowInternationalNetworks,
  blockedPrefixes: config.blockedPrefixes,
});
