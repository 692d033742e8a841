import type { Request, RequestHandler, Response } from "express";
import type { Account } from "../operator/index.js";
import type { AccountRole, ApiKeyKind, ApiKeyScope } from "../operator/index.js";
import type { KeyUsage } from "../operator/index.js";
import type { Db } from "../db/knex.js";
import { admitApiRequest, chargeBulkRows, chargeSessionRequest, type RateDecision, type RateLimit } from "../operator/index.js";
import { hashSecret, parseApiKey, secretHashMatches } from "../operator/index.js";
import { timingSafeEqual } from "node:crypto";
import { parse as parseCookies } from "cookie";
import { getAccount, isOperatorRole, ROLE_SCOPE, sessionOfToken, type SessionRow } from "../operator/index.js";
import { HttpError } from "./problem.js";
import { AddressLimiter, clientBucket, RecentSet } from "./addressLimiter.js";

declare module "express-serve-static-core" {
  interface Request {
    /** The key's account; absent for an operator key. */
    account?: Account;
    apiKey?: RequestKey;
    /** The signed-in person's session, when the request is made with the session cookie instead of a key. */
    session?: RequestSession;
  }
}

/** A person's session a request is made with (docs/USERS.md): the live session row and its user. */
export type RequestSession = SessionRow;

/** The session cookie's name. */
export const SESSION_COOKIE = "sms_session";

/** The key a request is made with. */
export interface RequestKey {
  id: string;
  kind: ApiKeyKind;
  /** Null for an operator key. */
  scope: ApiKeyScope | null;
  test: boolean;
  /** When the key expires; null for a key that does not. */
  expiresAt: Date | null;
  /**
   * The person who made the key with a session (or made the key that made it), with their role as it is now,
   * read with the key on this request: the key does at most what that role may (access.ts). Null for a key
   * made by the operator, the command line or the first start, and for a session (its own role is judged).
   */
  maker: KeyMakerNow | null;
}

/** A key's maker and the role they hold now. */
export interface KeyMakerNow {
  userId: string;
  email: string;
  role: AccountRole;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
// Compared against when the key id is unknown, so a miss costs the same as a wrong secret.
const DECOY_HASH = hashSecret("decoy");

const unauthorized = (detail: string) => new HttpError("unauthorized", detail, { headers: { "WWW-Authenticate": 'Bearer realm="api"' } });

/** Requests without a valid key, per client address and per process: RATE 0 turns it off. */
export interface AddressLimit {
  perSecond: number;
  burst: number;
}

/**
 * Authenticates `Authorization: Bearer sms_<keyId>_<secret>` (or a person's session cookie: authenticateSession,
 * charged to the same account bucket), puts the key's account on the request, and
 * applies its account's request rate limit (RATE_LIMIT_PER_SECOND sustained, RATE_LIMIT_BURST at once, shared by
 * all the account's keys and all instances: the state is in PostgreSQL), all in one database round trip. Every
 * admitted answer carries RateLimit-Limit/-Remaining/-Reset; a refused one is a 429 problem with Retry-After.
 * `chargeRequestWork` charges a request's bulk rows to the account's bulk bucket once its body is parsed.
 *
 * Every 401 takes a token from its client address's in-memory bucket; while that bucket is empty the address's
 * requests are refused with 429 before any database query, except those bearing a key this process has
 * recently seen succeed (so a valid client behind the same address as an attacker keeps working). Every call
 * of a public operation (`x-public`: signing in, accepting an invitation) takes a token from the same bucket,
 * refused with 429 `rate_limited` while it is empty, before its body is read.
 */
export function requireApiKey(db: Db, limit: RateLimit, addressLimit: AddressLimit, usage?: KeyUsage): RequestHandler {
  const addresses = addressLimit.perSecond > 0 ? new AddressLimiter(addressLimit.perSecond, addressLimit.burst) : undefined;
  const recentlyValid = new RecentSet();
  return async (req, res, next) => {
    const address = clientBucket(req.socket.remoteAddress ?? "unknown");
    if (req.operation?.public) {
      const wait = addresses?.retryAfterSeconds(address) ?? 0;
      if (wait > 0)
        return next(
          new HttpError("rate_limited", `Too many requests without a key or a session from this address. Retry after ${wait} s.`, {
            headers: { "Retry-After": String(wait) },
          }),
        );
      addresses?.take(address);
      return next();
    }
    const header = req.headers.authorization;
    const cookieToken = header ? undefined : sessionToken(req);
    if (cookieToken !== undefined) {
      try {
        await authenticateSession(db, req, cookieToken);
        if (limit.perSecond > 0) applyRateDecision(res, await chargeSessionRequest(db, req.session!, limit), limit);
        return next();
      } catch (error) {
        if (error instanceof HttpError && error.code === "unauthorized") addresses?.take(address);
        return next(error);
      }
    }
    const token = header ? BEARER.exec(header)?.[1] : undefined;
    const parsed = token ? parseApiKey(token) : undefined;
    const presented = parsed && hashSecret(parsed.secret);
    const seen = parsed && presented && `${parsed.keyId}:${presented.toString("base64")}`;
    try {
      const wait = addresses && !(seen && recentlyValid.has(seen)) ? addresses.retryAfterSeconds(address) : 0;
      if (wait > 0) {
        throw new HttpError("rate_limited", `Too many requests without a valid API key from this address. Retry after ${wait} s.`, {
          headers: { "Retry-After": String(wait) },
        });
      }
      if (!header) throw unauthorized("Send an API key in the header Authorization: Bearer <API_KEY>.");
      if (!parsed || !presented || !seen) throw unauthorized("The Authorization header must be `Bearer sms_<keyId>_<secret>`.");
      const { key, decision } = await admitApiRequest(db, parsed.keyId, presented, limit);
      const valid = secretHashMatches(presented, key?.secretHash ?? DECOY_HASH) && key !== undefined;
      if (!valid) {
        recentlyValid.delete(seen);
        throw unauthorized("The API key is unknown, revoked or expired.");
      }
      recentlyValid.add(seen);
      if (key.accountId !== null) {
        req.account = {
          id: key.accountId,
          name: key.accountName ?? "",
          firstStart: key.accountFirstStart ?? false,
          limits: key.accountLimits ?? undefined,
        };
      }
      req.apiKey = {
        id: key.keyId,
        kind: key.kind,
        scope: key.scope,
        test: key.test,
        expiresAt: key.expiresAt ?? null,
        maker:
          key.createdByUserId && key.createdByEmail && key.makerRole
            ? { userId: key.createdByUserId, email: key.createdByEmail, role: key.makerRole }
            : null,
      };
      usage?.seen(key.keyId);
      if (decision) applyRateDecision(res, decision, limit);
      if (key.accountSuspended)
        throw new HttpError("account_suspended", "The operator suspended this account: its keys call nothing until it is reinstated.");
      next();
    } catch (error) {
      if (error instanceof HttpError && error.code === "unauthorized") addresses?.take(address);
      next(error);
    }
  };
}

/** The session cookie's token, or undefined without one. */
function sessionToken(req: Request): string | undefined {
  const header = req.headers.cookie;
  return header ? parseCookies(header)[SESSION_COOKIE] || undefined : undefined;
}

const SAFE_METHODS = new Set(["GET", "HEAD"]);

/**
 * A request made with the session cookie: the session must be live (401 otherwise, as an unknown key), a request
 * that changes something must carry its CSRF token in `X-CSRF-Token` (403 `csrf_failed`: a cross-site form or
 * script cannot read it), and its account must not be suspended. The user's role stands for a key's scope
 * (ROLE_SCOPE); the access gate judges it as it judges keys, and `x-roles` besides.
 */
async function authenticateSession(db: Db, req: Request, cookieToken: string): Promise<void> {
  const session = await sessionOfToken(db, cookieToken);
  if (!session) throw unauthorized("The session has ended or is unknown: sign in again.");
  if (!SAFE_METHODS.has(req.method)) {
    const given = Buffer.from(String(req.headers["x-csrf-token"] ?? ""));
    const expected = Buffer.from(session.csrfToken);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new HttpError(
        "csrf_failed",
        "A request made with the session cookie that changes something needs the session's X-CSRF-Token header.",
      );
  }
  req.session = session;
  req.apiKey = {
    id: `user:${session.userId}`,
    kind: session.accountId === null ? "operator" : "account",
    scope: isOperatorRole(session.role) ? null : ROLE_SCOPE[session.role],
    test: false,
    expiresAt: null,
    maker: null,
  };
  if (session.accountId !== null) {
    const account = await getAccount(db, session.accountId);
    if (!account) throw unauthorized("The session's account no longer exists.");
    req.account = { id: account.id, name: account.name, firstStart: account.firstStart, limits: account.limits };
    if (account.suspended)
      throw new HttpError("account_suspended", "The operator suspended this account: its keys call nothing until it is reinstated.");
  }
}

/**
 * The list whose length is a request's bulk rows, by operation: a campaign recipient, an imported row or a
 * batch item is a token of the account's bulk bucket. Keyed by the operation the operation table resolved, so
 * no spelling of a path escapes the charge.
 */
const WORK_LISTS: Partial<Record<string, (body: Record<string, unknown>) => unknown>> = {
  Campaigns_create: (body) => body.recipients,
  Contacts_import: (body) => body.contacts,
  Messages_sendBatch: (body) => body.messages,
  OptOuts_import: (body) => body.optOuts,
};

/** Bulk rows a parsed request carries: the length of its list (0 without one). */
export function requestCost(req: Request): number {
  const list = req.operation && WORK_LISTS[req.operation.operationId];
  const items = list && req.body && typeof req.body === "object" ? list(req.body as Record<string, unknown>) : undefined;
  return Array.isArray(items) ? items.length : 0;
}

/**
 * Runs after the JSON body is parsed and before it is validated or handled: charges its bulk rows to the
 * account's bulk bucket. It comes before validation because validating 10,000 items is itself the work to pay
 * for (an invalid body is charged as well). Refused: 429 with Retry-After, nothing done. The request bucket
 * (and its RateLimit-* headers) is not touched: a large import never blocks the account's next send.
 */
export function chargeRequestWork(db: Db, bulk: RateLimit): RequestHandler {
  return async (req, res, next) => {
    try {
      const rows = requestCost(req);
      if (bulk.perSecond > 0 && rows > 0 && req.account) {
        const decision = await chargeBulkRows(db, req.account.id, rows, bulk);
        if (!decision.allowed) {
          throw new HttpError(
            "rate_limited",
            `This request carries ${rows} bulk rows (campaign recipients, import rows or batch items), charged to the account's bulk bucket: at most ${bulk.perSecond} rows/s (bursts of ${bulk.burst}). Retry after ${decision.retryAfterSeconds} s.`,
            { headers: { "Retry-After": String(decision.retryAfterSeconds) } },
          );
        }
      }
      next();
    } catch (error) {
      next(error);
    }
  };
}

function applyRateDecision(res: Response, decision: RateDecision, limit: RateLimit): void {
  res.setHeader("RateLimit-Limit", String(limit.burst));
  res.setHeader("RateLimit-Remaining", String(decision.remaining));
  res.setHeader("RateLimit-Reset", String(decision.resetSeconds));
  if (decision.allowed) return;
  throw new HttpError(
    "rate_limited",
    `Too many requests for this account: at most ${limit.perSecond} requests/s across all its keys (bursts of ${limit.burst}). Retry after ${decision.retryAfterSeconds} s.`,
    {
      headers: { "Retry-After": String(decision.retryAfterSeconds) },
    },
  );
}
