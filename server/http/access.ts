// Who may call an operation, as the OpenAPI document says: `x-key-kinds` (the kinds of key, `account` when
// absent), `x-scope` (the scope an account key needs, and a session's role as its scope: ROLE_SCOPE), `x-roles`
// (the roles a session needs besides, and a key made by a person: its maker's current role) and `x-public` (no key or session at all). Checked right after authentication, before the body
// is read: a refused request costs no parsing.
import type { RequestHandler } from "express";
import { ROLE_SCOPE, type ApiKeyKind, type ApiKeyScope } from "../operator/index.js";
import { isAudited } from "./audit.js";
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
  /** Called without a key or a session (`x-public`: accepting an invitation, signing in). */
  public: boolean;
  /**
   * The user roles a session needs besides its scope (`x-roles`), or null. A key is judged by its scope, and a
   * key a person made by its maker's current role too.
   */
  roles: readonly string[] | null;
}

type DocumentOperation = {
  "x-key-kinds"?: ApiKeyKind[];
  "x-scope"?: ApiKeyScope;
  "x-test-key"?: boolean;
  "x-public"?: boolean;
  "x-roles"?: string[];
};

/** The access rules of every operation of the document. */
export function operationAccess(operations: { method: string; path: string; operationId: string; operation: DocumentOperation }[]) {
  return operations.map(({ method, path, operationId, operation }): OperationAccess => ({
    method,
    path,
    operationId,
    kinds: operation["x-key-kinds"] ?? ["account"],
    scope: operation["x-scope"] ?? null,
    testKey: operation["x-test-key"] === true,
    public: operation["x-public"] === true,
    roles: operation["x-roles"] ?? null,
  }));
}

/** The operations of a person's own sign-in (the Sessions tag), open while two-factor sign-in is still to turn on. */
const SIGN_IN_OWN = /^(Sessions|TwoFactor)_/;

/** A person's own sign-in, password included: what an auditor may change. */
const OWN_SIGN_IN_AND_PASSWORD = /^(Sessions|TwoFactor)_|^Passwords_change$/;

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
  const op = req.operation!;
  if (op.public) return next();
  const key = req.apiKey!;
  if (!op.kinds.includes(key.kind)) return next(wrongKind(key.kind));
  // A person whose account requires two-factor sign-in and who has not turned it on may only see to its own
  // sign-in (the Sessions tag: its session, its sessions, turning two-factor sign-in on).
  if (req.session?.twoFactorRequired && !req.session.twoFactor && !SIGN_IN_OWN.test(op.operationId)) {
    return next(
      new HttpError(
        "two_factor_required",
        "This account requires two-factor sign-in: turn it on first (POST /api/v1/users/me/two-factor); until then only your own sign-in's operations answer.",
      ),
    );
  }
  // An auditor (an operator user who reads only) calls what changes nothing (the audit log's rule: reads,
  // explains, previews) and what is about its own sign-in (its sessions, second factor and password).
  if (
    req.session?.role === "auditor" &&
    isAudited(op.method.toUpperCase(), op.operationId) &&
    !OWN_SIGN_IN_AND_PASSWORD.test(op.operationId)
  ) {
    return next(
      new HttpError(
        "insufficient_role",
        `Signed in as auditor, who reads only; ${op.operationId} changes something: it needs the role operator.`,
      ),
    );
  }
  // A session: its user's role, as the operation's `x-roles` names them (its scope is checked below, as a key's).
  if (req.session && op.roles && !op.roles.includes(req.session.role)) {
    return next(
      new HttpError("insufficient_role", `Signed in as ${req.session.role}; ${op.operationId} needs the role ${op.roles.join(" or ")}.`),
    );
  }
  // A key a person made (with a session, or by a key they made) is never more than that person now: their role's
  // `x-roles` here, and their role's scope after the key's own (CONTRACT "Changed (turn 5)").
  const maker = key.maker;
  if (maker && op.roles && !op.roles.includes(maker.role)) {
    return next(
      new HttpError(
        "insufficient_role",
        `This key was made by ${maker.email}, now ${maker.role}; ${op.operationId} needs the role ${op.roles.join(" or ")}. A key does no more than the person who made it.`,
      ),
    );
  }
  if (key.kind === "account" && op.scope && !scopeCovers(key.scope!, op.scope)) {
    return next(
      new HttpError(
        "insufficient_scope",
        req.session
          ? `Signed in as ${req.session.role}, whose scope is \`${key.scope}\`; ${op.operationId} needs \`${op.scope}\`.`
          : `This key's scope is \`${key.scope}\`; ${op.operationId} needs \`${op.scope}\`. Use a key with a wider scope.`,
      ),
    );
  }
  if (maker && op.scope && !scopeCovers(ROLE_SCOPE[maker.role], op.scope)) {
    return next(
      new HttpError(
        "insufficient_role",
        `This key was made by ${maker.email}, now ${maker.role}, whose scope is \`${ROLE_SCOPE[maker.role]}\`; ${op.operationId} needs \`${op.scope}\`. A key does no more than the person who made it.`,
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
