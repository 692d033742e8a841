// Every environment knob of the service, read once. The README's configuration table mirrors this file.
export interface Config {
  port: number;
  host: string;
  role: "api" | "worker" | "all";
  databaseUrl: string | undefined;
  dataDir: string;
  nodeEnv: string;
  logLevel: string;
  defaultSenderId: string;
  webhookAllowPrivate: boolean;
  webhookTimeoutMs: number;
  webhookRetryBaseMs: number;
  simulatorDeliveryDelayMs: number;
  simulatorSubmitDelayMs: number;
  provider: "simulator" | "smpp";
  smppUrl: string | undefined;
  smppSystemType: string;
  smppMaxInFlight: number;
  smppMaxPerSecond: number;
  validateResponses: boolean;
  dbPoolMax: number;
  workerConcurrency: number;
  workerPrefetch: number;
  jobLeaseMs: number;
  jobRetentionMs: number;
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  unauthenticatedPerSecond: number;
  unauthenticatedBurst: number;
  maxWebhooksPerAccount: number;
  httpHeadersTimeoutMs: number;
  httpRequestTimeoutMs: number;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

function oneOf<T extends string>(env: NodeJS.ProcessEnv, name: string, values: readonly T[], fallback: T): T {
  const raw = env[name] ?? fallback;
  if (!(values as readonly string[]).includes(raw)) throw new Error(`${name} must be one of ${values.join(", ")}`);
  return raw as T;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    port: int(env, "PORT", 3000),
    host: env.HOST ?? "0.0.0.0",
    role: oneOf(env, "ROLE", ["api", "worker", "all"] as const, "all"),
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR ?? ".data",
    nodeEnv: env.NODE_ENV ?? "development",
    logLevel: env.LOG_LEVEL ?? "info",
    defaultSenderId: env.DEFAULT_SENDER_ID ?? "SMSPlatform",
    webhookAllowPrivate: env.WEBHOOK_ALLOW_PRIVATE === "1",
    webhookTimeoutMs: int(env, "WEBHOOK_TIMEOUT_MS", 5000),
    webhookRetryBaseMs: int(env, "WEBHOOK_RETRY_BASE_MS", 5000),
    simulatorDeliveryDelayMs: int(env, "SIMULATOR_DELIVERY_DELAY_MS", 500),
    simulatorSubmitDelayMs: int(env, "SIMULATOR_SUBMIT_DELAY_MS", 0),
    provider: oneOf(env, "PROVIDER", ["simulator", "smpp"] as const, "simulator"),
    smppUrl: env.SMPP_URL || undefined,
    smppSystemType: env.SMPP_SYSTEM_TYPE ?? "",
    smppMaxInFlight: Math.max(1, int(env, "SMPP_MAX_IN_FLIGHT", 10)),
    smppMaxPerSecond: Math.max(1, int(env, "SMPP_MAX_PER_SECOND", 50)),
    validateResponses: env.VALIDATE_RESPONSES === "1",
    dbPoolMax: int(env, "DB_POOL_MAX", 25),
    workerConcurrency: int(env, "WORKER_CONCURRENCY", 100),
    workerPrefetch: int(env, "WORKER_PREFETCH", 0),
    jobLeaseMs: int(env, "JOB_LEASE_MS", 15_000),
    jobRetentionMs: int(env, "JOB_RETENTION_HOURS", 24) * 3600_000,
    rateLimitPerSecond: int(env, "RATE_LIMIT_PER_SECOND", 50),
    rateLimitBurst: int(env, "RATE_LIMIT_BURST", 100),
    unauthenticatedPerSecond: int(env, "UNAUTHENTICATED_RATE_PER_SECOND", 5),
    unauthenticatedBurst: int(env, "UNAUTHENTICATED_BURST", 20),
    maxWebhooksPerAccount: int(env, "MAX_WEBHOOKS_PER_ACCOUNT", 10),
    httpHeadersTimeoutMs: int(env, "HTTP_HEADERS_TIMEOUT_MS", 10_000),
    httpRequestTimeoutMs: int(env, "HTTP_REQUEST_TIMEOUT_MS", 30_000),
  };
}
