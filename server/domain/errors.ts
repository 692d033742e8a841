import type { components } from "../../generated/api.js";

export type ProblemCode = components["schemas"]["ProblemCode"];
export type FieldError = components["schemas"]["FieldError"];

/** An error the client caused or must know about; the HTTP layer turns it into an RFC 9457 problem. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ProblemCode,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

export const notFound = (what: string) => new ApiError(404, "not_found", `${what} not found.`);

export const invalidField = (path: string, message: string) =>
  new ApiError(400, "validation_failed", `The request is invalid: ${path} ${message}.`, [{ path, message }]);

export const groupNotFound = () =>
  new ApiError(422, "group_not_found", "groupId does not name a group of this account.", [{ path: "/body/groupId", message: "no such group" }]);
