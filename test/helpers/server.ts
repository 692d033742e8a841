// A real HTTP server on 127.0.0.1 over a test database, with response validation on: a response that breaks
// the contract fails the request (500) and so the test.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";
import { createSmsClient, type SmsClient } from "../../client/index.js";
import { loadConfig, type Config } from "../../server/config.js";
import { resolveDeploymentProvider } from "../../server/routing/index.js";
import { createKeyForAccount, createOperatorKey } from "../../server/operator/index.js";
import { createApp, createHttpServer } from "../../server/http/app.js";
import { createLogger, type Logger } from "../../server/logger.js";
import type { Resolver } from "../../server/webhooks/urlPolicy.js";
import { useTestDatabase, type TestDatabase } from "./database.js";

export interface TestAccount {
  key: string;
  keyId: string;
  accountId: string;
  client: SmsClient;
  /** fetch with this account's key and a JSON body. */
  request: Requester;
  /** The operator assigns this number to the account (through the operator API); its numberId. */
  holds: (phoneNumber: string) => Promise<string>;
}

type Requester = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Response>;

export interface TestOperator {
  key: string;
  keyId: string;
  request: Requester;
}

export interface TestServer extends TestDatabase {
  baseUrl: string;
  config: Config;
  account: (name?: string) => Promise<TestAccount>;
  /** An operator key (made once per server). */
  operator: () => Promise<TestOperator>;
}

const requester =
  (baseUrl: string, key: string): Requester =>
  (method, path, body, headers = {}) =>
    fetch(baseUrl + path, {
      method,
      headers: {
        Authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    });

export function useTestServer(overrides: Partial<Config> = {}, opts: { log?: Logger; resolver?: Resolver } = {}): () => TestServer {
  const database = useTestDatabase();
  let server: Server | undefined;
  let current: TestServer | undefined;
  let accounts = 0;

  const start = async () => {
    const { db, ...rest } = database();
    // Rate limits off unless a test turns them on: many tests fire hundreds of requests with one key (or none).
    const config: Config = {
      ...loadConfig({}),
      provider: "simulator",
      webhookAllowPrivate: true,
      validateResponses: true,
      rateLimitPerSecond: 0,
      rateLimitBulkPerSecond: 0,
      unauthenticatedPerSecond: 0,
      ...overrides,
    };
    const log = opts.log ?? createLogger(process.env.TEST_LOG_LEVEL ?? "silent");
    // As a process started with PROVIDER records it (an SMPP test's link is known only once its SMSC listens).
    if (config.provider === "simulator" || config.smppUrl) await resolveDeploymentProvider(db, config, log);
    const app = createApp({ db, log, config, now: () => new Date(), resolver: opts.resolver });
    server = await new Promise<Server>((resolve) => {
      const s = createHttpServer(app, config).listen(0, "127.0.0.1", () => resolve(s));
    });
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    let operator: Promise<TestOperator> | undefined;
    const operatorOnce = () => (operator ??= createOperatorKey(db, "tests").then((k) => ({ ...k, request: requester(baseUrl, k.key) })));
    current = {
      ...rest,
      db,
      baseUrl,
      config,
      operator: operatorOnce,
      account: async (name) => {
        const created = await createKeyForAccount(db, name ?? `account-${++accounts}-${Date.now()}`);
        return {
          ...created,
          client: createSmsClient({ baseUrl, apiKey: created.key }),
          request: requester(baseUrl, created.key),
          holds: async (phoneNumber) => {
            const res = await (await operatorOnce()).request("POST", `/api/v1/accounts/${created.accountId}/numbers`, { phoneNumber });
            if (res.status !== 201) throw new Error(`assigning ${phoneNumber}: ${res.status} ${await res.text()}`);
            return ((await res.json()) as { numberId: string }).numberId;
          },
        };
      },
    };
  };
  beforeAll(start);
  afterAll(async () => {
    // A response whose body a test left unread keeps its connection busy, and close() would wait for it: the
    // connections are ended once no new ones are taken.
    await new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.close(() => resolve());
      server.closeAllConnections();
    });
  });
  return () => {
    if (!current) throw new Error("test server not started");
    return current;
  };
}

/** Reads a problem document and checks its media type. */
export async function problemOf(
  res: Response,
): Promise<{ status: number; code: string; detail: string; errors?: { path: string; message: string }[] }> {
  const type = res.headers.get("content-type") ?? "";
  if (!type.startsWith("application/problem+json"))
    throw new Error(`expected a problem document, got ${res.status} ${type}: ${await res.text()}`);
  return (await res.json()) as never;
}

export const inHours = (h: number) => new Date(Date.now() + h * 3600_000).toISOString();

/** A valid POST /scheduler/schedule body an hour ahead, with `over` on top. */
export const scheduleBody = (over: Record<string, unknown> = {}) => ({
  to: "+14155550123",
  from: "ACME",
  body: "hello",
  scheduledAt: inHours(1),
  ...over,
});

/** A carrier connector, as an operator adds one (an API-only test server never binds to it). */
export async function addCarrierConnector(op: TestOperator, enabled = true): Promise<string> {
  const res = await op.request("POST", "/api/v1/connectors", {
    name: `carrier-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`,
    type: "smpp",
    enabled,
    smpp: { host: "127.0.0.1", port: 9, systemId: "carrier", password: "pw" },
  });
  if (res.status !== 201) throw new Error(`adding a carrier connector: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { connectorId: string }).connectorId;
}
