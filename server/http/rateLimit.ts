import type { RequestHandler } from "express";
import type { Db } from "../db/knex.js";
import { takeRateToken } from "../db/rateLimits.js";
import { ApiError } from "../domain/errors.js";

/**
 * Per API key: RATE_LIMIT_PER_SECOND sustained, RATE_LIMIT_BURST at once, shared by all instances (the state
 * is in PostgreSQL). Every answer carries RateLimit-Limit/-Remaining/-Reset; a refused one is a 429 problem
 * with Retry-After.
 */
export function rateLimitPerKey(db: Db, perSecond: number, burst: number): RequestHandler {
  return async (req, res, next) => {
    try {
      if (perSecond <= 0 || !req.apiKeyId) return next();
      const decision = await takeRateToken(db, req.apiKeyId, perSecond, burst);
      res.setHeader("RateLimit-Limit", String(burst));
      res.setHeader("RateLimit-Remaining", String(decision.remaining));
      res.setHeader("RateLimit-Reset", String(decision.resetSeconds));
      if (decision.allowed) return next();
      throw new ApiError(429, "rate_limited", `Too many requests for this API key: at most ${perSecond}/s (bursts of ${burst}). Retry after ${decision.retryAfterSeconds} s.`, undefined, {
        "Retry-After": String(decision.retryAfterSeconds),
      });
    } catch (error) {
      next(error);
    }
  };
}
