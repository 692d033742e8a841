import type { components } from "../../generated/api.js";

export type ProblemCode = components["schemas"]["ProblemCode"];
export type FieldError = components["schemas"]["FieldError"];

/**
 * A rule of the service refused what was asked: a problem code (the contract's list), a sentence for the
 * caller and, for fields, where. It knows nothing of HTTP: the HTTP layer (http/problem.ts) gives each code its
 * status and title and turns the error into an RFC 9457 problem.
 */
export class DomainError extends Error {
  readonly errors?: FieldError[];
  /** When asking again may succeed, in seconds (a quota's next day). */
  readonly retryAfterSeconds?: number;

  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    opts: { errors?: FieldError[]; retryAfterSeconds?: number } = {},
  ) {
    super(detail);
    this.errors = opts.errors;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

export const notFound = (what: string) => new DomainError("not_found", `${what} not found.`);

/** A test key reaching for something live (a live message, batch or campaign to cancel). */
export const testKeyNotAllowed = (what: string) =>
  new DomainError("test_key_not_allowed", `This ${what} was sent with a live key: a test key cancels test messages only.`);

export const invalidField = (path: string, message: string) =>
  new DomainError("validation_failed", `The request is invalid: ${path} ${message}.`, { errors: [{ path, message }] });

export const groupNotFound = () =>
  new DomainError("group_not_found", "groupId does not name a group of this account.", {
    errors: [{ path: "/body/groupId", message: "no such group" }],
  });
