// Who may call an operation, as the OpenAPI document says: `x-key-kinds` (the kinds of key, `account` when
// absent) and `x-scope` (the scope an account key needs). Checked right after authentication, before the body
// is read: a refused request costs no parsing.
import type { RequestHandler } from "express";
import type { ApiKeyKind, ApiKeyScope } from "../db/apiKeys.js";
import { HttpError } from "./problem.js";

export interface OperationAccess {
  method: string;
  path: string;
  operationId: string;
  kinds: readonly ApiKeyKind[];
  /** The scope an account key needs; null for an operation of operator keys alone. */
  scope: ApiKeyScope | null;
}

type DocumentOperation = { "x-key-kinds"?: ApiKeyKind[]; "x-scope"?: ApiKeyScope };

/** The access rules of every operation of the document. */
export function operationAccess(operations: { method: string; path: string; operationId: string; operation: DocumentOperation }[]) {
  return operations.map(({ method, path, operationId, operation }): OperationAccess => ({
    method,
    path,
    operationId,
    kinds: operation["x-key-kinds"] ?? ["account"],
    scope: operation["x-scope"] ?? null,
  }));
}

/** Scopes a key of each scope covers: `full` covers `send`, which covers `read`. */
const COVERS: Record<ApiKeyScope, readonly ApiKeyScope[]> = { full: ["full", "send", "read"], send: ["send", "read"], read: ["read"] };

export const scopeCovers = (held: ApiKeyScope, needed: ApiKeyScope): boolean => COVERS[held].includes(needed);

/**
 * 403 `wrong_key_kind` for a key of the other kind, 403 `insufficient_scope` for an account key whose scope
 * does not cover the operation. A `full` account key, the common case, is matched only against the
 * operations that do not take account keys (a handful): every other path is the account API's.
 * (A guard route per operation doubled the route layers every request walks: bench:api 0.92 of the commit
 * before.)
 */
export function requireKeyAccess(operations: OperationAccess[]): RequestHandler {
  const matchers = operations.map((op) => ({
    ...op,
    method: op.method.toUpperCase(),
    pattern: new RegExp(`^${op.path.replace(/\{\w+\}/g, "[^/]+")}/?$`),
  }));
  const notForAccounts = matchers.filter((m) => !m.kinds.includes("account"));
  // Literal paths before templated ones: /numbers/holder is not /numbers/{numberId}.
  const byLiteralFirst = [...matchers].sort((x, y) => Number(x.path.includes("{")) - Number(y.path.includes("{")));
  const find = (list: typeof matchers, method: string, path: string) => list.find((m) => m.method === method && m.pattern.test(path));

  return (req, _res, next) => {
    const key = req.apiKey!;
    const path = req.baseUrl + req.path;
    if (key.kind === "account" && key.scope === "full") {
      // Operator paths only (none is a template a literal account path could also match).
      if (find(notForAccounts, req.method, path)) return next(wrongKind("account"));
      return next();
    }
    const op = find(byLiteralFirst, req.method, path);
    if (!op) return next(key.kind === "operator" ? wrongKind("operator") : undefined); // 404 or 405 further on
    if (!op.kinds.includes(key.kind)) return next(wrongKind(key.kind));
    if (key.kind === "account" && op.scope && !scopeCovers(key.scope!, op.scope)) {
      return next(
        new HttpError(
          "insufficient_scope",
          `This key's scope is \`${key.scope}\`; ${op.operationId} needs \`${op.scope}\`. Use a key with a wider scope.`,
        ),
      );
    }
    next();
  };
}

function wrongKind(kind: ApiKeyKind): HttpError {
  return new HttpError(
    "wrong_key_kind",
    kind === "operator"
      ? "An operator key calls the operator API only; this path is the account API: use an account key."
      : "An account key calls the account API only; this path is the operator API: use an operator key.",
  );
}
