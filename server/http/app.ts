import express, { type Express, type Request, type RequestHandler } from "express";
import { REQUEST_FORMATS } from "./requestFormats.js";
import helmet from "helmet";
import { randomUUID, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { resolve } from "node:path";
import { pinoHttp } from "pino-http";
import { register, Registry } from "prom-client";
import type { Config } from "../config.js";
import { schemaState, type SchemaState } from "../db/knex.js";
import { loggableUrl, scrubSecrets } from "../logger.js";
import { invalidField, type FieldError } from "../domain/errors.js";
import { chargeRequestWork, requireApiKey } from "./auth.js";
import { operationAccess, requireKeyAccess } from "./access.js";
import { operationTable, resolveOperation } from "./operationTable.js";
import { isAudited, recordAudit } from "./audit.js";
import { batchItemValidator } from "./batchItems.js";
import { dashboardRouter } from "./dashboard.js";
import { InvitationMailer } from "../operator/index.js";
import { docsRouter } from "./docs.js";
import { documentOperations, generatedDir, loadDocument } from "./document.js";
import { registerDatabaseMetrics } from "./databaseMetrics.js";
import { createHttpMetrics } from "./metrics.js";
import { errorHandler, HttpError, notFoundHandler, requireJsonBody, sendProblem } from "./problem.js";
import { deferredValidator, warmUpValidator } from "./validator.js";
import { KeyUsage } from "../operator/index.js";
import { ReceiptClient } from "../webhooks/client.js";
import type { ApiOperationId, ApiServices, Context, Services, Streamed } from "./types.js";
import { handlers } from "./routes/index.js";
import { ExportSlots } from "./exportSlots.js";
import { writeStream } from "./stream.js";

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The operation's handler, run with the path parameters the operation table resolved. */
function route(services: ApiServices, operationId: ApiOperationId, method: string): RequestHandler {
  const handler = handlers[operationId] as (
    ctx: Context<ApiOperationId>,
  ) => Promise<{ status: number; body?: unknown; stream?: Streamed; headers?: Record<string, string> }>;
  const audited = isAudited(method.toUpperCase(), operationId);
  return async (req, res, next) => {
    const params = req.operation!.params;
    try {
      const reply = await handler({
        ...services,
        account: req.account!,
        key: req.apiKey!,
        session: req.session,
        client: {
          address: req.socket.remoteAddress ?? "unknown",
          userAgent: req.headers["user-agent"] ?? null,
          secure: requestIsSecure(req, services.config),
          requestId: typeof req.id === "string" ? req.id : String(req.id ?? ""),
        },
        body: req.body,
        path: params as never,
        query: req.query,
        headers: contractHeaders(req),
        log: req.log,
      });
      if (audited) {
        // The account changed: the path's (an operator's change to an account), the one created, else the key's.
        const accountId = params.accountId ?? (reply.body as { accountId?: string } | undefined)?.accountId ?? req.account?.id ?? null;
        await recordAudit(services.db, req.log, req, { operationId, status: reply.status, body: reply.body, accountId });
      }
      if (reply.headers) for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
      if (reply.status === 204) res.status(204).end();
      else if (reply.stream) {
        const release = services.exportSlots.take(req.account?.id ?? "operator");
        try {
          await writeStream(res, reply.status, reply.stream, services.config.exportStallMs);
        } finally {
          release();
        }
      } else res.status(reply.status).json(reply.body);
    } catch (error) {
      next(error);
    }
  };
}

/**
 * Whether the browser reached the service over TLS, for the session cookie's `Secure`: always when PUBLIC_URL is
 * `https://…` (the address people are given), when the connection itself is TLS, or, with TRUST_PROXY set, when
 * the proxy in front says so (`X-Forwarded-Proto: https`, its first value: the hop nearest the browser).
 */
export function requestIsSecure(req: Request, config: { publicUrl?: string; trustProxy: boolean }): boolean {
  if (config.publicUrl !== undefined && /^https:/i.test(config.publicUrl.trim())) return true;
  if (req.secure) return true;
  if (!config.trustProxy) return false;
  const forwarded = req.headers["x-forwarded-proto"];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim().toLowerCase();
  return first === "https";
}

/** Headers arrive lowercased; handlers read them as the contract spells them (`Idempotency-Key`). */
function contractHeaders(req: Request): Record<string, unknown> {
  const key = req.headers["idempotency-key"];
  return { "Idempotency-Key": typeof key === "string" ? key : undefined };
}

export function createApp(services: Services): Express {
  const { db, log, config } = services;
  const document = loadDocument();
  const metrics = createHttpMetrics();
  registerDatabaseMetrics(metrics.registry, db);
  const app = express();
  const validator = deferredValidator(app, validatorOptions(document, config));
  app.disable("x-powered-by");
  app.set("trust proxy", false);
  app.set("etag", false);

  app.use(requestLogger(log));
  app.use(metrics.middleware);
  app.use(helmet());

  // Unauthenticated infrastructure endpoints.
  app.get("/healthz", (_req, res) => void res.json({ status: "ok" }));
  app.get("/readyz", readiness(services, validator));
  app.get("/metrics", metricsEndpoint(config, metrics.registry));
  const yaml = readFileSync(resolve(generatedDir, "openapi.yaml"), "utf8");
  app.get("/openapi.json", (_req, res) => void res.json(document));
  app.get("/openapi.yaml", (_req, res) => void res.type("application/yaml").send(yaml));
  app.use("/docs", docsRouter());
  app.use(
    "/dashboard",
    dashboardRouter(undefined, { keySignIn: (config.dashboardKeySignIn ?? (config.nodeEnv === "production" ? "off" : "on")) === "on" }),
  );

  // From here on every request is an operation of the document, resolved once by the one routing table
  // (operationTable.ts): the key gate, the bulk charge, the audit and the dispatch below all judge that
  // operation, never a path of their own. Anything else is 404 (405 for another method) before authentication.
  const operations = documentOperations(document).filter((op) => !op.operationId.startsWith("System_"));
  app.use(resolveOperation(operationTable(operationAccess(operations))));
  const keyLimit = { perSecond: config.rateLimitPerSecond, burst: config.rateLimitBurst };
  const keyUsage = new KeyUsage(db, log);
  app.use(requireApiKey(db, keyLimit, { perSecond: config.unauthenticatedPerSecond, burst: config.unauthenticatedBurst }, keyUsage));
  app.use(requireKeyAccess);
  app.use(requireJsonBody);
  // A batch of 10,000 messages may take up to 16 MiB; every other body 1 MiB.
  const batchJson = express.json({ limit: "16mb", strict: true });
  const json = express.json({ limit: "1mb", strict: true });
  app.use((req, res, next) => (req.operation!.operationId === "Messages_sendBatch" ? batchJson : json)(req, res, next));
  app.use(chargeRequestWork(db, { perSecond: config.rateLimitBulkPerSecond, burst: config.rateLimitBulkBurst }));
  app.use(rejectHostileBodies);
  app.use(rejectBracketedQueries);
  app.use(validator.middleware);

  const apiServices: ApiServices = {
    ...services,
    keyUsage,
    exportSlots: new ExportSlots(config.exportsPerAccount),
    batchItems: batchItemValidator(document),
    mailer: config.smtpUrl ? new InvitationMailer(config.smtpUrl, config.smtpFrom, log) : undefined,
    receipts: new ReceiptClient({
      timeoutMs: config.webhookTimeoutMs,
      allowPrivate: config.webhookAllowPrivate,
      resolver: services.resolver,
      connections: 8,
    }),
  };
  const dispatch = new Map(operations.map((op) => [op.operationId, route(apiServices, op.operationId as ApiOperationId, op.method)]));
  app.use((req, res, next) => dispatch.get(req.operation!.operationId)!(req, res, next));

  app.use(notFoundHandler);
  app.use(errorHandler(log));
  return app;
}

/**
 * The HTTP server for an app. Slow clients: a request must send its headers within HTTP_HEADERS_TIMEOUT_MS and
 * finish within HTTP_REQUEST_TIMEOUT_MS (checked every second, not Node's default 30 s), so a slowloris cannot
 * hold sockets; idle keep-alive connections close after 65 s (longer than common load balancers' 60 s).
 */
export function createHttpServer(app: Express, config: Config): import("node:http").Server {
  const server = createServer(
    { connectionsCheckingInterval: 1000, headersTimeout: config.httpHeadersTimeoutMs, requestTimeout: config.httpRequestTimeoutMs },
    app,
  );
  server.keepAliveTimeout = 65_000;
  server.once("listening", () => setImmediate(() => warmUpValidator(app)));
  return server;
}

/** True when an Authorization header carries exactly this bearer token (compared in constant time). */
function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(/^Bearer (.+)$/i.exec(header ?? "")?.[1] ?? "");
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** No request schema nests anywhere near this deep; deeper JSON is refused before anything recurses into it. */
const MAX_BODY_DEPTH = 64;

/**
 * The first problem in a parsed body: a value nested deeper than MAX_BODY_DEPTH, or a string containing NUL.
 * Iterative, so a body nested 400,000 levels deep (under 1 MiB as arrays) cannot overflow the stack here.
 */
function bodyProblem(body: unknown): FieldError | undefined {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: body, path: "/body", depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === "string" && value.includes("\u0000")) return { path, message: "must not contain the NUL character (\\u0000)" };
    if (!value || typeof value !== "object") continue;
    if (depth >= MAX_BODY_DEPTH) return { path: "/body", message: `is nested deeper than ${MAX_BODY_DEPTH} levels` };
    for (const [k, v] of Object.entries(value)) stack.push({ value: v, path: `${path}/${k}`, depth: depth + 1 });
  }
  return undefined;
}

/** PostgreSQL text cannot hold NUL, and deep nesting is an attack: refuse both as bad input here. */
const rejectHostileBodies: RequestHandler = (req, _res, next) => {
  const problem = bodyProblem(req.body);
  if (!problem) return next();
  next(new HttpError("validation_failed", `The request is invalid: ${problem.path} ${problem.message}.`, { errors: [problem] }));
};

/**
 * The document defines every query parameter as a plain name (`status=a,b`, `status=a&status=b`). The validator
 * reads `status[a]=b` or `phones[]=x` as an object or array of its own making (a 500 once, or silently dropped
 * with `[__proto__]`): a bracketed name is refused here as the unknown parameter it is.
 */
const rejectBracketedQueries: RequestHandler = (req, _res, next) => {
  const query = req.originalUrl.indexOf("?");
  if (query < 0) return next();
  for (const name of new URLSearchParams(req.originalUrl.slice(query + 1)).keys()) {
    if (/[[\]]/.test(name)) return next(invalidField(`/query/${name}`, "is not a parameter of this operation (no bracketed names)"));
  }
  next();
};

/** express-openapi-validator's options for the contract's document. */
function validatorOptions(document: object, config: Services["config"]): Parameters<typeof deferredValidator>[1] {
  return {
    apiSpec: structuredClone(document) as never,
    validateRequests: { allowUnknownQueryParameters: false },
    validateResponses: config.validateResponses
      ? {
          onError: (error: Error) => {
            throw error;
          },
        }
      : false,
    validateSecurity: false,
    // Ids PostgreSQL takes and dates that are instants (requestFormats.ts), over ajv-formats' full checks.
    formats: { ...REQUEST_FORMATS },
    // Full format checks: the fast ones take 2027-02-31 or T24:00 as a date-time, which JavaScript then rolls
    // over into another day (a send moved to 3 March); full ones know each month's days, leap years and that
    // an hour or an offset ends at 23.
    ajvFormats: { mode: "full" },
    // The batch's items are checked one by one, each reported by its index (http/batchItems.ts).
    ignorePaths: /^\/(healthz|readyz|api\/v1\/messages\/batch)$/,
    // The generated document is checked against the OpenAPI schema by `npm run lint:spec` and by every
    // test run; a production start skips checking it again.
    validateApiSpec: config.nodeEnv !== "production",
  };
}

/** pino-http: one line per request, its id given back as X-Request-Id. */
function requestLogger(log: Services["log"]) {
  return pinoHttp({
    logger: log,
    genReqId: (req, res) => {
      const given = req.headers["x-request-id"];
      const id = typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
      res.setHeader("X-Request-Id", id);
      return id;
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? "error" : "info"),
    autoLogging: { ignore: (req) => req.url === "/healthz" || req.url === "/metrics" },
    serializers: { req: loggableRequest },
  });
}

/** GET /readyz: the validator made, the database reachable and migrated, the provider bound. */
function readiness(services: Services, validator: ReturnType<typeof deferredValidator>): RequestHandler {
  const { db } = services;
  return async (_req, res) => {
    // Ready means validating requests without making them wait: the validator is created after listening.
    try {
      await validator.ready();
    } catch {
      return sendProblem(res, new HttpError("service_unavailable", "The request validator could not be created."));
    }
    let schema: SchemaState;
    try {
      schema = await schemaState(db);
    } catch {
      return sendProblem(res, new HttpError("service_unavailable", "The database is unreachable."));
    }
    if (schema.unknown.length) {
      // A newer release migrated the database while this server ran: it must be replaced (docs/OPERATIONS.md).
      const detail = `The database schema is newer than this server (migrations it does not know: ${schema.unknown.join(", ")}); replace this server with the newer release.`;
      return sendProblem(res, new HttpError("service_unavailable", detail));
    }
    if (schema.pending.length) {
      return sendProblem(res, new HttpError("service_unavailable", `Migrations are pending: ${schema.pending.join(", ")}.`));
    }
    // About the process alone: a carrier's link down is an alert (SmsConnectorDown), not unreadiness.
    res.json({ status: "ready", database: "up", migrations: "current" });
  };
}

/** GET /metrics: this app's HTTP metrics and the process-wide ones, behind METRICS_TOKEN when set. */
function metricsEndpoint(config: Services["config"], registry: Registry): RequestHandler {
  return async (req, res) => {
    if (config.metricsToken && !bearerMatches(req.headers.authorization, config.metricsToken)) {
      return sendProblem(
        res,
        new HttpError("unauthorized", "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.", {
          headers: { "WWW-Authenticate": 'Bearer realm="metrics"' },
        }),
      );
    }
    // This app's HTTP metrics plus the process-wide ones (the SMPP session, when this process has one).
    const merged = Registry.merge([registry, register]);
    res.type(merged.contentType).send(await merged.metrics());
  };
}

/**
 * A request as logged: its URL's credentials redacted and phone numbers masked (logger.ts, loggableUrl), key
 * shapes in any header redacted; the headers named in redactPaths are censored by pino itself.
 */
function loggableRequest(req: { url?: string; query?: unknown; headers?: Record<string, unknown> }) {
  const headers = Object.fromEntries(
    Object.entries(req.headers ?? {}).map(([name, value]) => [name, typeof value === "string" ? scrubSecrets(value) : value]),
  );
  return { ...req, url: req.url && loggableUrl(req.url), query: undefined, headers };
}
