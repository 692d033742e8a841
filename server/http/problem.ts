import type { ErrorRequestHandler, RequestHandler, Response } from "express";
import { ApiError, PROBLEMS, type FieldError, type ProblemCode } from "../domain/errors.js";
import type { Logger } from "../logger.js";

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

export function sendProblem(res: Response, error: ApiError): void {
  res.status(error.status);
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  res.type("application/problem+json").send(
    JSON.stringify({
      type: `urn:sms-platform:problem:${error.code}`,
      title: PROBLEMS[error.code].title,
      status: error.status,
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
    ["ECONNREFUSED", "ECONNRESET", "57P01", "57P02", "57P03", "08000", "08003", "08006"].includes(err?.code ?? "") ||
    err?.name === "KnexTimeoutError" ||
    /Connection terminated|connection ended/i.test(err?.message ?? "")
  );
}

/** Turns anything thrown into a problem document; a 5xx never carries internals. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const e = error as { type?: string; status?: number; message?: string };
  switch (e?.type) {
    case "entity.parse.failed":
      return new ApiError("validation_failed", "The request body is not valid JSON.", {
        errors: [{ path: "/body", message: "is not valid JSON" }],
      });
    case "entity.too.large":
      return new ApiError("payload_too_large", "The request body is larger than 1 MiB.");
    case "charset.unsupported":
    case "encoding.unsupported":
      return new ApiError("unsupported_media_type", "The request body must be UTF-8 JSON.");
    default:
      break; // not a body-parser error: the checks below
  }
  // Text PostgreSQL cannot store (e.g. NUL in a query parameter that reached a query): the input is bad.
  if ((error as { code?: string })?.code === "22021" || (error as { code?: string })?.code === "22P05") {
    return new ApiError("validation_failed", "The request contains characters that cannot be stored.");
  }
  if (isValidatorError(e)) {
    const code = CODE_BY_STATUS[e.status];
    if (code && e.status < 500) {
      const errors: FieldError[] = (e.errors ?? []).map((x) => ({
        path: x.path.replace(/^\/params\//, "/path/"),
        message: describe(x.message),
      }));
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
      return new ApiError(code, detail, { errors: code === "validation_failed" ? errors : undefined });
    }
  }
  if (isDatabaseUnavailable(error)) {
    return new ApiError("service_unavailable", "The database is unavailable; retry later.", { headers: { "Retry-After": "1" } });
  }
  return new ApiError("internal_error", "An unexpected error occurred; it has been logged.");
}

export function errorHandler(log: Logger): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const problem = toApiError(error);
    if (problem.status >= 500) {
      (req.log ?? log).error({ err: error, code: problem.code }, "request failed");
    }
    if (res.headersSent) return;
    sendProblem(res, problem);
  };
}

export const notFoundHandler: RequestHandler = (_req, res) => {
  sendProblem(res, new ApiError("not_found", "There is no such path in this API."));
};
