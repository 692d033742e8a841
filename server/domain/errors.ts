import type { components } from "../../generated/api.js";

export type ProblemCode = components["schemas"]["ProblemCode"];
export type FieldError = components["schemas"]["FieldError"];

/** Every problem code with its HTTP status and title: a problem is built from its code alone. */
export const PROBLEMS: Record<ProblemCode, { status: number; title: string }> = {
  validation_failed: { status: 400, title: "Validation failed" },
  unauthorized: { status: 401, title: "Unauthorized" },
  not_found: { status: 404, title: "Not found" },
  method_not_allowed: { status: 405, title: "Method not allowed" },
  not_cancellable: { status: 409, title: "Not cancellable" },
  contact_exists: { status: 409, title: "Contact exists" },
  group_exists: { status: 409, title: "Group exists" },
  number_taken: { status: 409, title: "Number taken" },
  idempotency_key_reused: { status: 409, title: "Idempotency key reused" },
  payload_too_large: { status: 413, title: "Payload too large" },
  unsupported_media_type: { status: 415, title: "Unsupported media type" },
  scheduled_at_not_in_future: { status: 422, title: "scheduledAt is not in the future" },
  scheduled_at_too_far: { status: 422, title: "scheduledAt is too far ahead" },
  group_not_found: { status: 422, title: "Group not found" },
  empty_audience: { status: 422, title: "Empty audience" },
  recipient_opted_out: { status: 422, title: "Recipient opted out" },
  invalid_time_zone: { status: 422, title: "Invalid time zone" },
  invalid_quiet_hours: { status: 422, title: "Invalid quiet hours" },
  number_not_found: { status: 422, title: "Number not found" },
  // 422 as GitHub answers a hook over its per-repository limit: the request is valid, the account's state refuses it.
  webhook_limit_reached: { status: 422, title: "Webhook limit reached" },
  rate_limited: { status: 429, title: "Rate limited" },
  internal_error: { status: 500, title: "Internal error" },
  not_implemented: { status: 501, title: "Not implemented" },
  service_unavailable: { status: 503, title: "Service unavailable" },
};

/** An error the client caused or must know about; the HTTP layer turns it into an RFC 9457 problem. */
export class ApiError extends Error {
  readonly status: number;
  readonly errors?: FieldError[];
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    opts: { errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(detail);
    this.status = PROBLEMS[code].status;
    this.errors = opts.errors;
    this.headers = opts.headers ?? {};
  }
}

export const notFound = (what: string) => new ApiError("not_found", `${what} not found.`);

export const invalidField = (path: string, message: string) =>
  new ApiError("validation_failed", `The request is invalid: ${path} ${message}.`, { errors: [{ path, message }] });

export const groupNotFound = () =>
  new ApiError("group_not_found", "groupId does not name a group of this account.", {
    errors: [{ path: "/body/groupId", message: "no such group" }],
  });
