import type { RequestHandler, Response } from "express";
import type { Account } from "../db/accounts.js";
import type { Db } from "../db/knex.js";
import { admitApiRequest, type RateDecision, type RateLimit } from "../db/rateLimits.js";
import { hashSecret, parseApiKey, secretHashMatches } from "../domain/apiKeys.js";
import { ApiError } from "../domain/errors.js";

declare module "express-serve-static-core" {
  interface Request {
    account?: Account;
    apiKeyId?: string;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
// Compared against when the key id is unknown, so a miss costs the same as a wrong secret.
const DECOY_HASH = hashSecret("decoy");

const unauthorized = (detail: string) =>
  new ApiError("unauthorized", detail, { headers: { "WWW-Authenticate": 'Bearer realm="api"' } });

/**
 * Authenticates `Authorization: Bearer sms_<keyId>_<secret>`, puts the key's account on the request, and
 * applies the key's rate limit (RATE_LIMIT_PER_SECOND sustained, RATE_LIMIT_BURST at once, shared by all
 * instances: the state is in PostgreSQL), all in one database round trip. Every admitted answer carries
 * RateLimit-Limit/-Remaining/-Reset; a refused one is a 429 problem with Retry-After.
 */
export function requireApiKey(db: Db, limit: RateLimit): RequestHandler {
  return async (req, res, next) => {
    try {
      const header = req.headers.authorization;
      if (!header) throw unauthorized("Send an API key in the header Authorization: Bearer <API_KEY>.");
      const token = BEARER.exec(header)?.[1];
      const parsed = token ? parseApiKey(token) : undefined;
      if (!parsed) throw unauthorized("The Authorization header must be `Bearer sms_<keyId>_<secret>`.");
      const presented = hashSecret(parsed.secret);
      const { key, decision } = await admitApiRequest(db, parsed.keyId, presented, limit);
      const valid = secretHashMatches(presented, key?.secretHash ?? DECOY_HASH) && key !== undefined;
      if (!valid) throw unauthorized("The API key is unknown or revoked.");
      req.account = { id: key.accountId, name: key.accountName };
      req.apiKeyId = key.keyId;
      if (decision) applyRateDecision(res, decision, limit);
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
  throw new ApiError("rate_limited", `Too many requests for this API key: at most ${limit.perSecond}/s (bursts of ${limit.burst}). Retry after ${decision.retryAfterSeconds} s.`, {
    headers: { "Retry-After": String(decision.retryAfterSeconds) },
  });
}
