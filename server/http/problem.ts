import type { ErrorRequestHandler, RequestHandler, Response } from "express";
import { DomainError, type FieldError, type ProblemCode } from "../domain/errors.js";
import type { Logger } from "../logger.js";

/**
 * An error only HTTP knows (authentication, the database unreachable, the validator's verdicts): a domain
 * error with the headers its answer carries.
 */
export class HttpError extends DomainError {
  readonly headers: Record<string, string>;

  constructor(code: ProblemCode, detail: string, opts: { errors?: FieldError[]; headers?: Record<string, string> } = {}) {
    super(code, detail, opts);
    this.headers = opts.headers ?? {};
  }
}

/** Every problem code with its HTTP status and title: a problem is built from its code alone. */
export const PROBLEMS: Record<ProblemCode, { status: number; title: string }> = {
  validation_failed: { status: 400, title: "Validation failed" },
  unauthorized: { status: 401, title: "Unauthorized" },
  wrong_key_kind: { status: 403, title: "Wrong kind of key" },
  insufficient_scope: { status: 403, title: "Insufficient scope" },
  test_key_not_allowed: { status: 403, title: "Not allowed with a test key" },
  account_suspended: { status: 403, title: "Account suspended" },
  self_service_disabled: { status: 403, title: "Self-service numbers disabled" },
  key_in_use: { status: 409, title: "Key in use" },
  simulator_unavailable: { status: 409, title: "Simulator unavailable" },
  account_exists: { status: 409, title: "Account exists" },
  connector_exists: { status: 409, title: "Connector exists" },
  sender_pool_exists: { status: 409, title: "Sender pool exists" },
  system_id_exists: { status: 409, title: "System ID exists" },
  sender_pool_not_found: { status: 422, title: "Sender pool not found" },
  connector_in_use: { status: 409, title: "Connector in use" },
  version_conflict: { status: 409, title: "Version conflict" },
  route_invalid: { status: 422, title: "Route invalid" },
  not_found: { status: 404, title: "Not found" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  not_cancellable: { status: 409, title: "Not cancellable" },
  contact_exists: { status: 409, title: "Contact exists" },
  group_exists: { status: 409, title: "Group exists" },
  number_taken: { status: 409, title: "Number taken" },
  idempotency_key_reused: { status: 409, title: "Idempotency key reused" },
  payload_too_large: { status: 413, title: "Payload too large" },
  unsupported_media_type: { status: 415, title: "Unsupported media type" },
  unsupported_encoding: { status: 415, title: "Unsupported content encoding" },
  scheduled_at_not_in_future: { status: 422, title: "scheduledAt is not in the future" },
  scheduled_at_too_far: { status: 422, title: "scheduledAt is too far ahead" },
  group_not_found: { status: 422, title: "Group not found" },
  empty_audience: { status: 422, title: "Empty audience" },
  recipient_opted_out: { status: 422, title: "Recipient opted out" },
  invalid_time_zone: { status: 422, title: "Invalid time zone" },
  invalid_quiet_hours: { status: 422, title: "Invalid quiet hours" },
  reply_too_long: { status: 422, title: "Reply too long" },
  number_not_found: { status: 422, title: "Number not found" },
  sender_not_allowed: { status: 422, title: "Sender not allowed" },
  destination_not_allowed: { status: 422, title: "Destination not allowed" },
  destination_blocked: { status: 422, title: "Destination blocked" },
  // 422 as GitHub answers a hook over its per-repository limit: the request is valid, the account's state refuses it.
  webhook_limit_reached: { status: 422, title: "Webhook limit reached" },
  rate_limited: { status: 429, title: "Rate limited" },
  quota_exceeded: { status: 429, title: "Daily quota exceeded" },
  insufficient_funds: { status: 402, title: "Insufficient funds" },
  no_price: { status: 422, title: "No price" },
  price_list_not_found: { status: 422, title: "Price list not found" },
  currency_mismatch: { status: 422, title: "Currency mismatch" },
  price_list_in_use: { status: 409, title: "Price list in use" },
  user_exists: { status: 409, title: "User exists" },
  last_owner: { status: 409, title: "Last owner" },
  weak_password: { status: 422, title: "Weak password" },
  invitation_invalid: { status: 404, title: "Invitation invalid" },
  invalid_credentials: { status: 401, title: "Invalid credentials" },
  totp_required: { status: 401, title: "Second factor required" },
  sign_in_locked: { status: 429, title: "Sign-in locked" },
  csrf_failed: { status: 403, title: "CSRF check failed" },
  session_required: { status: 403, title: "Session required" },
  insufficient_role: { status: 403, title: "Insufficient role" },
  two_factor_required: { status: 403, title: "Two-factor sign-in required" },
  two_factor_off: { status: 409, title: "Two-factor sign-in off" },
  email_required: { status: 422, title: "Email required" },
  template_exists: { status: 409, title: "Template exists" },
  campaign_started: { status: 409, title: "Campaign started" },
  campaign_finished: { status: 409, title: "Campaign finished" },
  campaign_draft: { status: 409, title: "Campaign is a draft" },
  template_not_found: { status: 422, title: "Template not found" },
  template_in_use: { status: 409, title: "Template in use" },
  email_mismatch: { status: 422, title: "Email mismatch" },
  two_factor_enabled: { status: 409, title: "Two-factor sign-in on" },
  invalid_code: { status: 422, title: "Invalid code" },
  wrong_password: { status: 422, title: "Wrong password" },
  reset_invalid: { status: 404, title: "Reset link invalid" },
  user_invited: { status: 409, title: "User not active yet" },
  internal_error: { status: 500, title: "Internal error" },
  not_implemented: { status: 501, title: "Not implemented" },
  service_unavailable: { status: 503, title: "Service unavailable" },
};

/** The HTTP status of a problem. */
export const statusOf = (problem: DomainError): number => PROBLEMS[problem.code].status;

const CODE_BY_STATUS: Record<number, ProblemCode> = {
  400: "validation_failed",
  401: "unauthorized",
  404: "not_found",
  405: "method_not_allowed",
  413: "payload_too_large",
  415: "unsupported_media_type",
  501: "not_implemented",
  503: "service_unavailable",
};

export function sendProblem(res: Response, error: DomainError): void {
  res.status(statusOf(error));
  if (error instanceof HttpError) for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  if (error.retryAfterSeconds !== undefined) res.setHeader("Retry-After", String(error.retryAfterSeconds));
  res.type("application/problem+json").send(
    JSON.stringify({
      type: `urn:sms-platform:problem:${error.code}`,
      title: PROBLEMS[error.code].title,
      status: statusOf(error),
      detail: error.detail,
      code: error.code,
      ...(error.errors?.length ? { errors: error.errors } : {}),
    }),
  );
}

/** Ajv says "must NOT be valid" for a property that `unevaluatedProperties: {not: {}}` forbids. */
function describe(message: string): string {
  return message === "must NOT be valid" || message.includes("unevaluated") ? "is not a known field" : message;
}

interface ValidatorError {
  status: number;
  message: string;
  errors?: { path: string; message: string }[];
}

const isValidatorError = (e: unknown): e is ValidatorError =>
  typeof (e as ValidatorError)?.status === "number" && Array.isArray((e as ValidatorError).errors);

/** A connection-level database failure: the request may be retried once the database is back. */
function isDatabaseUnavailable(e: unknown): boolean {
  const err = e as { code?: string; message?: string; name?: string };
  return (
    // 08001: no host of a several-host DATABASE_URL fits (db/hosts.ts); 25006: a write reached a standby (a
    // connection opened before a failover demoted its host); 57P04: the database was dropped or is being.
    ["ECONNREFUSED", "ECONNRESET", "57P01", "57P02", "57P03", "57P04", "08000", "08001", "08003", "08006", "25006"].includes(
      err?.code ?? "",
    ) ||
    err?.name === "KnexTimeoutError" ||
    /Connection terminated|connection ended|encountered a connection error and is not queryable/i.test(err?.message ?? "")
  );
}

/** The Content-Encodings a request body may come in (body-parser decodes them; Node 22.15+ would add zstd). */
export const ACCEPTED_ENCODINGS = ["identity", "gzip", "deflate", "br"] as const;

/**
 * Refuses a body the API cannot read before anything parses it: one that is not `application/json` (a
 * `text/plain`, form or multipart body was parsed as nothing and the request validated without it), and one
 * whose Content-Encoding is not in ACCEPTED_ENCODINGS. A request without a body passes whatever it says.
 */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  const hasBody = Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
  if (!hasBody) return next();
  const encoding = (req.headers["content-encoding"] ?? "identity").trim().toLowerCase();
  if (!(ACCEPTED_ENCODINGS as readonly string[]).includes(encoding)) return next(toProblem({ type: "encoding.unsupported" }));
  const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json")
    return next(new HttpError("unsupported_media_type", "The request body must be sent with Content-Type: application/json."));
  next();
};

/**
 * A value allowed to be an object or null (`quietHours`) that fails as an object also fails as null, and Ajv
 * reports both branches and the anyOf itself. When a branch gave a specific reason, the others are noise.
 */
function withoutBranchNoise(errors: FieldError[]): FieldError[] {
  const noise = (x: FieldError) => /^must (be null|match a schema in anyOf|match exactly one schema in oneOf)$/.test(x.message);
  const specific = errors.filter((x) => !noise(x));
  return errors.filter((x) => !noise(x) || !specific.some((y) => y.path === x.path || y.path.startsWith(`${x.path}/`)));
}

/** Turns anything thrown into a problem document; a 5xx never carries internals. */
export function toProblem(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  const e = error as { type?: string; status?: number; message?: string };
  switch (e?.type) {
    case "entity.parse.failed":
      return new HttpError("validation_failed", "The request body is not valid JSON.", {
        errors: [{ path: "/body", message: "is not valid JSON" }],
      });
    case "entity.too.large":
      return new HttpError("payload_too_large", "The request body is larger than 1 MiB.");
    case "charset.unsupported":
      return new HttpError("unsupported_media_type", "The request body must be UTF-8 JSON.");
    case "encoding.unsupported":
      return new HttpError("unsupported_encoding", `The request body's Content-Encoding must be one of ${ACCEPTED_ENCODINGS.join(", ")}.`);
    default:
      break; // not a body-parser error: the checks below
  }
  // body-parser's other 400s: the body did not decode in the Content-Encoding it named (a zlib error), or the
  // connection ended before the body did.
  if (e?.status === 400 && (error as { expose?: boolean }).expose && !isValidatorError(e)) {
    return new HttpError("validation_failed", "The request body could not be read in the Content-Encoding it names.", {
      errors: [{ path: "/body", message: "does not decode in its Content-Encoding" }],
    });
  }
  // Text PostgreSQL cannot store (e.g. NUL in a query parameter that reached a query): the input is bad.
  if ((error as { code?: string })?.code === "22021" || (error as { code?: string })?.code === "22P05") {
    return new HttpError("validation_failed", "The request contains characters that cannot be stored.");
  }
  if (isValidatorError(e)) {
    const code = CODE_BY_STATUS[e.status];
    if (code && e.status < 500) {
      const errors = withoutBranchNoise(
        (e.errors ?? []).map((x) => ({ path: x.path.replace(/^\/params\//, "/path/"), message: describe(x.message) })),
      );
      const detail =
        code === "validation_failed"
          ? `The request is invalid: ${errors.map((x) => `${x.path} ${x.message}`).join("; ")}.`
          : code === "unsupported_media_type"
            ? "The request body must be sent with Content-Type: application/json."
            : code === "method_not_allowed"
              ? "The method is not allowed on this path."
              : code === "not_found"
                ? "There is no such path in this API."
                : e.message;
      return new HttpError(code, detail, { errors: code === "validation_failed" ? errors : undefined });
    }
  }
  if (isDatabaseUnavailable(error)) {
    return new HttpError("service_unavailable", "The database is unavailable; retry later.", { headers: { "Retry-After": "1" } });
  }
  return new HttpError("internal_error", "An unexpected error occurred; it has been logged.");
}

export function errorHandler(log: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const problem = toProblem(error);
    if (statusOf(problem) >= 500) {
      (req.log ?? log).error({ err: error, code: problem.code }, "request failed");
    }
    if (res.headersSent) return;
    sendProblem(res, problem);
  };
}

export const notFoundHandler: RequestHandler = (_req, res) => {
  sendProblem(res, new HttpError("not_found", "There is no such path in this API."));
};
