// Who may call an operation, as the OpenAPI document says: `x-key-kinds` (the kinds of key, `account` when
// absent) and `x-scope` (the scope an account key needs). Checked right after authentication, before the body
// is read: a refused request costs no parsing.
import type { RequestHandler } from "express";
import type { ApiKeyKind, ApiKeyScope } from "../operator/index.js";
import { HttpError } from "./problem.js";

export interface OperationAccess {
  method: string;
  path: string;
  operationId: string;
  kinds: readonly ApiKeyKind[];
  /** The scope an account key needs; null for an operation of operator keys alone. */
  scope: ApiKeyScope | null;
  /** A test key may call it: its `x-test-key` (sending and cancelling test messages, making test keys). */
  testKey: boolean;
}

type DocumentOperation = { "x-key-kinds"?: ApiKeyKind[]; "x-scope"?: ApiKeyScope; "x-test-key"?: boolean };

/** The access rules of every operation of the document. */
export function operationAccess(operations: { method: string; path: string; operationId: string; operation: DocumentOperation }[]) {
  return operations.map(({ method, path, operationId, operation }): OperationAccess => ({
    method,
    path,
    operationId,
    kinds: operation["x-key-kinds"] ?? ["account"],
    scope: operation["x-scope"] ?? null,
    testKey: operation["x-test-key"] === true,
  }));
}

/** Scopes a key of each scope covers: `full` covers `send`, which covers `read`. */
const COVERS: Record<ApiKeyScope, readonly ApiKeyScope[]> = { full: ["full", "send", "read"], send: ["send", "read"], read: ["read"] };

export const scopeCovers = (held: ApiKeyScope, needed: ApiKeyScope): boolean => COVERS[held].includes(needed);

/**
 * 403 `wrong_key_kind` for a key of the other kind, 403 `insufficient_scope` for an account key whose scope
 * does not cover the operation, 403 `test_key_not_allowed` for a test key on an operation that is neither a
 * read nor marked `x-test-key` (a cancel with a test key is judged again on what it cancels: a live message
 * is not a test key's). It judges `req.operation`, the operation the operation table resolved and the
 * dispatcher will run (operationTable.ts): there is no second matching of paths here to disagree with it.
 */
export const requireKeyAccess: RequestHandler = (req, _res, next) => {
  const key = req.apiKey!;
  const op = req.operation!;
  if (!op.kinds.includes(key.kind)) return next(wrongKind(key.kind));
  if (key.kind === "account" && op.scope && !scopeCovers(key.scope!, op.scope)) {
    return next(
      new HttpError(
        "insufficient_scope",
        `This key's scope is \`${key.scope}\`; ${op.operationId} needs \`${op.scope}\`. Use a key with a wider scope.`,
      ),
    );
  }
  if (key.test && op.scope !== "read" && !op.testKey) {
    return next(
      new HttpError(
        "test_key_not_allowed",
        `A test key sends and cancels test messages, makes test keys and reads; ${op.operationId} needs a live key.`,
      ),
    );
  }
  next();
};

function wrongKind(kind: ApiKeyKind): HttpError {
  return new HttpError(
    "wrong_key_kind",
    kind === "operator"
      ? "An operator key calls the operator API only; this path is the account API: use an account key."
      : "An account key calls the account API only; this path is the operator API: use an operator key.",
  );
}
